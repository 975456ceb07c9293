import { useEffect, useState } from 'react';
import type { Schemas } from '../../api/client';
import { draftsOf, inputOf, type Drafts } from './channel-draft';

/**
 * The notification drafts and what they are compared with. They start from `saved` as read on this visit; a newer
 * `saved` (another tab, the account's backend, the notifier disabling a failing channel) replaces them when nothing
 * was edited, and sets `changedElsewhere` over edits, because a save replaces the whole configuration.
 */
export function useDrafts(saved: Schemas['NotificationConfig'], saving: boolean) {
  const [drafts, setDrafts] = useState<Drafts>(() => draftsOf(saved));
  const [savedJson, setSavedJson] = useState(() => JSON.stringify(inputOf(draftsOf(saved))));
  const [base, setBase] = useState(() => JSON.stringify(saved));
  const [changedElsewhere, setChangedElsewhere] = useState(false);
  const changed = JSON.stringify(inputOf(drafts)) !== savedJson;
  const serverJson = JSON.stringify(saved);

  /** Edits start over from `config` (a save's answer, or the server's newer configuration). */
  const start = (config: Schemas['NotificationConfig']) => {
    setDrafts(draftsOf(config));
    setSavedJson(JSON.stringify(inputOf(draftsOf(config))));
    setBase(JSON.stringify(config));
    setChangedElsewhere(false);
  };

  useEffect(() => {
    if (serverJson === base || saving) return;
    if (changed) setChangedElsewhere(true);
    else start(JSON.parse(serverJson) as Schemas['NotificationConfig']);
    // `start` only sets state, so it is not a dependency.
  }, [serverJson, base, changed, saving]);

  return { drafts, setDrafts, changed, changedElsewhere, start };
}
