// Test fixtures for workspaces whose tests play X with the simulator: `@hashwatch/x-simulator/testing`.
export { startTestSimulator, useTestSimulator } from './test-simulator';
export type { StartedTestSimulator, TestSimulator } from './test-simulator';
export { simulatorWithClock } from './simulator-with-clock';
export { APP_HEADERS, APP_TOKEN, USER_HEADERS, USER_TOKEN } from './test-tokens';
export { RECORDINGS_DIR, recordedAnswer, recordedAnswerText } from './recorded-answers';
