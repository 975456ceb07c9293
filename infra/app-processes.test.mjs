// npm run test:infra  (npm test runs these too)
import assert from 'node:assert/strict';
import { appRole, assignPorts, buildTargets, launchableApps } from './app-processes.mjs';
import { workspaces } from './workspaces.mjs';

const demoApps = () => ['x-sim', 'alert-inbox', 'gateway', 'notifier'].map((name) => ({ name, role: appRole(name) }));
const byName = (apps, name) => apps.find((app) => app.name === name);

describe('assignPorts', () => {
  it('gives the alert inbox an SMTP port beside its HTTP port and hands the gateway its mail server and public address', async () => {
    const apps = demoApps();
    const env = {};
    await assignPorts(apps, env, {});

    const inbox = byName(apps, 'alert-inbox');
    const gateway = byName(apps, 'gateway');
    assert.deepEqual(Object.keys(inbox.ports), ['ALERT_INBOX_PORT', 'ALERT_INBOX_SMTP_PORT']);
    assert.equal(inbox.ports.ALERT_INBOX_PORT, inbox.port);
    assert.equal(env.SMTP_URL, `smtp://127.0.0.1:${inbox.ports.ALERT_INBOX_SMTP_PORT}`);
    assert.equal(env.TELEGRAM_API_BASE_URL, `http://127.0.0.1:${inbox.port}`);
    assert.equal(env.PUBLIC_URL, `http://localhost:${gateway.port}`);
    assert.deepEqual(gateway.ports, { PORT: gateway.port });
    const every = apps.flatMap((app) => Object.values(app.ports));
    assert.equal(new Set(every).size, every.length, `ports collide: ${every.join(', ')}`);
  });

  it('leaves SMTP_URL and PUBLIC_URL alone when the environment sets them', async () => {
    const env = { SMTP_URL: 'smtp://mail.example.com:587', PUBLIC_URL: 'https://hashwatch.example.com' };
    const apps = demoApps();
    await assignPorts(apps, env, { ...env });

    assert.equal(env.SMTP_URL, 'smtp://mail.example.com:587');
    assert.equal(env.PUBLIC_URL, 'https://hashwatch.example.com');
    assert.equal(typeof byName(apps, 'alert-inbox').ports.ALERT_INBOX_SMTP_PORT, 'number');
  });
});

const ws = (rel, scripts = { build: 'tsc', start: 'node dist/main.js' }) => ({ rel, folder: rel.split('/').pop(), name: `@hashwatch/${rel.split('/').pop()}`, scripts });

describe('buildTargets', () => {
  it('names exactly the apps npm start launches, the admin CLI and the dashboard', () => {
    const all = workspaces();
    const launched = launchableApps(all).map((app) => app.name);
    assert.deepEqual(new Set(buildTargets(all)), new Set([...launched, '@hashwatch/admin', '@hashwatch/dashboard']));
    for (const name of ['gateway', 'scanner', 'engagement-poller', 'notifier', 'x-sim', 'alert-inbox']) {
      assert.ok(launched.includes(`@hashwatch/${name}`), `${name} is not launched`);
    }
  });

  it('builds a new app with a start script and leaves out the tests, packages nothing runs and scriptless apps', () => {
    const all = [
      ws('apps/admin'),
      ws('apps/dashboard', { build: 'vite build' }),
      ws('apps/gateway'),
      ws('apps/reporter'),
      ws('apps/docs-site', { build: 'tsc' }),
      ws('packages/sdk', { build: 'tsc' }),
      ws('e2e', { build: 'tsc' }),
    ];
    assert.deepEqual(buildTargets(all), ['@hashwatch/admin', '@hashwatch/dashboard', '@hashwatch/gateway', '@hashwatch/reporter']);
    assert.deepEqual(launchableApps(all).map((app) => app.name), ['@hashwatch/gateway', '@hashwatch/reporter']);
  });
});
