/**
 * A self-contained HTML rendering of the OpenAPI document: no script or stylesheet from elsewhere, so it
 * works offline and under helmet's default Content-Security-Policy.
 */
export function docsPage(document: Record<string, unknown>): string {
  const info = document.info as { title: string; version: string; description?: string };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const sections = Object.entries(paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => renderOperation(method, path, operation)),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info.title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#1f2328}
h2{border-top:1px solid #d0d7de;padding-top:1rem;font-size:1.05rem}
.m{display:inline-block;min-width:4.5rem;font-weight:700;text-transform:uppercase}
code,pre{background:#f6f8fa;border-radius:4px}pre{padding:.6rem;overflow:auto;font-size:.8rem}
table{border-collapse:collapse;font-size:.9rem}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left}
</style></head><body>
<h1>${escape(info.title)} <small>${escape(info.version)}</small></h1>
<p>${escape(info.description ?? '')}</p>
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p>
${sections.join('\n')}
</body></html>`;
}

interface Operation {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string }>;
}

function renderOperation(method: string, path: string, operation: Operation): string {
  const parameters = operation.parameters?.length
    ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>${operation.parameters
        .map((p) => `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escape(JSON.stringify(p.schema ?? {}))}</code></td></tr>`)
        .join('')}</table>`
    : '';
  const body = operation.requestBody ? `<p>Body:</p><pre>${escape(JSON.stringify(operation.requestBody.content['application/json']?.schema ?? {}, null, 2))}</pre>` : '';
  const responses = Object.entries(operation.responses)
    .map(([status, response]) => `<li><code>${escape(status)}</code> ${escape(response.description)}</li>`)
    .join('');
  return `<section><h2><span class="m">${escape(method)}</span> <code>${escape(path)}</code></h2>
<p>${escape(operation.summary ?? '')}${operation.description ? ` ${escape(operation.description)}` : ''}</p>${parameters}${body}<ul>${responses}</ul></section>`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
