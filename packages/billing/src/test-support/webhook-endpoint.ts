import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAppError } from '@hashwatch/errors';
import type { HandledWebhook } from '../stripe/stripe-webhook';

export interface WebhookEndpoint {
  url: string;
  /** What each request was answered, in order: the outcome, or the error's name. */
  answers: (HandledWebhook | { status: number; error: string })[];
  close(): Promise<void>;
}

/**
 * A webhook endpoint as the gateway serves one: the raw body and the Stripe-Signature header go to `handle`; an
 * AppError (a bad signature) answers its status, any other error 500, so Stripe retries.
 */
export async function startWebhookEndpoint(handle: (rawBody: Buffer, signature: string | undefined) => Promise<HandledWebhook>): Promise<WebhookEndpoint> {
  const answers: WebhookEndpoint['answers'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const header = req.headers['stripe-signature'];
      handle(Buffer.concat(chunks), Array.isArray(header) ? header[0] : header).then(
        (handled) => {
          answers.push(handled);
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true }));
        },
        (error: unknown) => {
          const status = isAppError(error) ? error.status : 500;
          answers.push({ status, error: error instanceof Error ? error.name : 'unknown' });
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: status === 400 ? 'invalid_request' : 'internal_error' } }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/billing/stripe/webhook`,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
