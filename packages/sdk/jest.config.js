// The SDK's own tests are pure (no database): its behaviour is tested against the real gateway in apps/gateway and e2e/.
module.exports = { ...require('../../jest.base.js')(__dirname), globalSetup: undefined, globalTeardown: undefined };
