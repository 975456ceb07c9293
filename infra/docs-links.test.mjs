// npm run test:infra -- infra/docs-links.test.mjs  (npm test runs it)
// Every relative link of the repository's Markdown leads somewhere: the file exists, and a #fragment names a
// heading of the Markdown file it points into (GitHub's anchors).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The Markdown files git tracks or would add (node_modules and other ignored files left out). */
function markdownFiles() {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  return listed.stdout.split('\n').filter((file) => file && existsSync(path.join(ROOT, file)));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped but for - and _, spaces turned into dashes. */
function anchorOf(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings, numbered as GitHub numbers repeats (`-1`, `-2`). */
function anchorsOf(text) {
  const seen = new Map();
  const anchors = new Set();
  for (const match of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(match[1].replace(/`/g, ''));
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

/** `[text](target)` and `![alt](target)` outside code blocks and code spans, with the line each sits on. */
function linksOf(text) {
  const links = [];
  const lines = text.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' ')).split('\n');
  lines.forEach((line, index) => {
    for (const match of line.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length)).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ target: match[1], line: index + 1 });
    }
  });
  return links;
}

describe('Markdown links', () => {
  it('reads GitHub anchors and links the way GitHub renders them', () => {
    assert.equal(anchorOf('Metrics and Grafana'), 'metrics-and-grafana');
    assert.equal(anchorOf('The API in ten lines'), 'the-api-in-ten-lines');
    assert.equal(anchorOf('Sessions and 2FA'), 'sessions-and-2fa');
    assert.deepEqual(linksOf('see [a](b.md#c) and `[not](a link)`\n```\n[nor](this)\n```\n![img](d.png)').map((link) => link.target), ['b.md#c', 'd.png']);
  });

  it('point at files that exist, and at headings that exist', () => {
    const broken = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const { target, line } of linksOf(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [pathPart, fragment] = target.split('#');
        const resolved = pathPart ? path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(pathPart)) : path.join(ROOT, file);
        if (!existsSync(resolved)) {
          broken.push(`${file}:${line}: ${target} (no such file)`);
          continue;
        }
        if (fragment && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(fragment)) {
          broken.push(`${file}:${line}: ${target} (no such heading)`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });
});
