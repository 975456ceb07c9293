// Test fixtures for anything that sends through the channels: a real HTTP server on 127.0.0.1 that records each
// request and answers as the test scripts it (`@hashwatch/channels/testing`).
export { startLocalServer } from '../test-support/local-server';
export type { LocalServer, ReceivedRequest, Reply } from '../test-support/local-server';
export { parseTelegramHtml } from '../test-support/telegram-html';
export type { ParsedHtml } from '../test-support/telegram-html';
