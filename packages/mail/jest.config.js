// The inbox touches neither PostgreSQL nor Redis: the shared settings without the database template.
const base = require('../../jest.base.js')(__dirname);
module.exports = { ...base, globalSetup: undefined, globalTeardown: undefined };
