// npm run test:infra -- infra/metrics-docs.test.mjs
// What docs/OPERATIONS.md's "Metrics and Grafana" tells an operator must hold: the scrape targets are the ports the apps
// serve /metrics on in docker-compose, and the dashboard imports with one Prometheus data source input.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');

/** `service:port` of each app as docker-compose runs it: PORT for the gateway, HEALTH_PORT for the workers. */
function composeTargets() {
  const { services } = parse(read('docker-compose.yml'));
  return ['gateway', 'scanner', 'engagement-poller', 'notifier'].map((name) => {
    const env = services[name].environment;
    return `${name}:${name === 'gateway' ? env.PORT : env.HEALTH_PORT}`;
  });
}

function metricsSection() {
  const operations = read('docs/OPERATIONS.md');
  const start = operations.indexOf('\n## Metrics and Grafana\n');
  assert.ok(start >= 0, 'docs/OPERATIONS.md has a ## Metrics and Grafana section');
  const end = operations.indexOf('\n## ', start + 1);
  return operations.slice(start, end < 0 ? undefined : end);
}

describe('docs/OPERATIONS.md: Metrics and Grafana', () => {
  it('scrapes the ports every app serves /metrics on', () => {
    const expected = composeTargets();
    const example = parse(read('infra/prometheus/prometheus.yml'));
    assert.deepEqual(example.scrape_configs[0].static_configs[0].targets, expected);
    const section = metricsSection();
    const block = section.match(/```yaml\n([\s\S]*?)```/);
    assert.ok(block, 'a Prometheus scrape example');
    assert.deepEqual(parse(block[1]).scrape_configs[0].static_configs[0].targets, expected);
    assert.match(section, /curl -s http:\/\/localhost:3000\/metrics/);
  });

  it('imports the dashboard it names with one Prometheus data source input used by every panel', () => {
    const section = metricsSection();
    assert.match(section, /infra\/grafana\/hashwatch\.json/);
    assert.match(section, /DS_PROMETHEUS/);
    const dashboard = JSON.parse(read('infra/grafana/hashwatch.json'));
    assert.deepEqual(dashboard.__inputs.map((input) => [input.name, input.type, input.pluginId]), [['DS_PROMETHEUS', 'datasource', 'prometheus']]);
    const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
    assert.ok(panels.length >= 8);
    for (const panel of panels) {
      assert.deepEqual(panel.datasource, { type: 'prometheus', uid: '${DS_PROMETHEUS}' }, panel.title);
      for (const target of panel.targets) assert.deepEqual(target.datasource, panel.datasource, panel.title);
    }
    assert.equal(new Set(dashboard.panels.map((panel) => panel.id)).size, dashboard.panels.length, 'panel ids are unique');
  });
});
