// node --test infra/  (npm test runs these too)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appRole, assignPorts } from './app-processes.mjs';

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
