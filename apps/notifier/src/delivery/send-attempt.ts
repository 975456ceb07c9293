import { ChannelConfigError, deliver, type ChannelConfig, type ChannelMessage, type DeliveryAttempt, type Sender } from '@hashwatch/channels';

/** One send of a message; a channel whose config can never work answers a permanent failure that disables it. */
export async function sendAttempt(message: ChannelMessage, config: ChannelConfig, messageId: string, sender: Sender): Promise<DeliveryAttempt> {
  try {
    return await deliver(message, config, { messageId, timestamp: new Date() }, sender);
  } catch (error) {
    if (!(error instanceof ChannelConfigError)) throw error;
    return { outcome: { outcome: 'permanent', reason: `the channel cannot be used: ${error.message}`, disableChannel: true }, status: null };
  }
}
