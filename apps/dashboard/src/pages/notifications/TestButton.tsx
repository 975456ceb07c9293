import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/client';
import { describeError } from '../../api/errors';

/** Sends a test alert to a saved channel now and shows the target's answer. */
export function TestButton({ target, unsaved }: { target: { channel: 'webhook'; id: string } | { channel: 'bot' }; unsaved: boolean }) {
  const test = useMutation({ mutationFn: () => api.post('/v1/notifications/test', { body: target }) });
  return (
    <div className="test">
      <button type="button" className="secondary" aria-busy={test.isPending} disabled={test.isPending} onClick={() => test.mutate()}>
        Send test
      </button>
      <span role="status">
        {test.data ? `Delivered (HTTP ${test.data.status})` : test.error ? describeError(test.error) : unsaved ? 'Tests the saved settings: save first to test changes.' : ''}
      </span>
    </div>
  );
}
