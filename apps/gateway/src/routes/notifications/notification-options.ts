import { createSender, DEFAULT_TELEGRAM_BASE_URL, type Sender } from '@hashwatch/channels';

/** What the notification routes need beyond GatewayDeps; main.ts builds it from the environment. */
export interface NotificationOptions {
  /** Sends `POST /notifications/test` alerts; SSRF-guarded (see @hashwatch/channels createSender). */
  sender: Sender;
  /** `TELEGRAM_API_BASE_URL`. */
  telegramBaseUrl: string;
  /** `WEBHOOK_ALLOW_PRIVATE_NETWORKS`: also lets PUT accept `http:` webhook URLs. */
  allowPrivateNetworks: boolean;
}

/** Deadline of one test delivery when no sender is given: the client waits for it. */
export const TEST_DELIVERY_TIMEOUT_MS = 10_000;

/** `deps.notifications`, or the documented defaults (docs/CONFIGURATION.md): api.telegram.org, public https: targets only. */
export function notificationOptions(deps: { notifications?: NotificationOptions }): NotificationOptions {
  return (
    deps.notifications ?? {
      sender: createSender({ allowPrivateNetworks: false, timeoutMs: TEST_DELIVERY_TIMEOUT_MS }),
      telegramBaseUrl: DEFAULT_TELEGRAM_BASE_URL,
      allowPrivateNetworks: false,
    }
  );
}
