// node --test infra/metrics-docs.test.mjs
// What the README's "Metrics and Grafana" tells an operator must hold: the scrape targets are the ports the apps
// serve /metrics on in docker-compose, and the dashboard imports with one Prometheus data source input.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
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
  const readme = read('README.md');
  const start = readme.indexOf('### Metrics and Grafana');
  assert.ok(start > readme.indexOf('## Operations') && start < readme.indexOf('## Development'), 'the section sits at the end of ## Operations');
  return readme.slice(start, readme.indexOf('## Development'));
}

describe('README: Metrics and Grafana', () => {
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
