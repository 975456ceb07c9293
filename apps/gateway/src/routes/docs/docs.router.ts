import path from 'node:path';
import compression from 'compression';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { PAGE_CSP } from '../../middleware/security-headers';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hashwatch API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head><body>
<noscript>The reference needs JavaScript; the document itself is <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</noscript>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/docs-init.js"></script>
</body></html>
`;

// A file of its own rather than an inline script, so script-src stays 'self'. Try-it is off and the Authorize
// dialog (the button and each operation's lock) is left out: no key or password is ever typed into the docs.
// validatorUrl null: the default badge calls validator.swagger.io.
const INIT_SCRIPT = `function withoutAuthorize() {
  var nothing = function () { return function () { return null; }; };
  return { wrapComponents: { authorizeBtn: nothing, authorizeOperationBtn: nothing } };
}
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    supportedSubmitMethods: [],
    tryItOutEnabled: false,
    plugins: [withoutAuthorize],
    validatorUrl: null,
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 3,
  });
});
`;

/** The files of swagger-ui-dist the page loads; nothing else of that folder is served. */
const SWAGGER_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'];

function noCache(res: Response): void {
  res.setHeader('Cache-Control', 'no-cache');
}

/**
 * `/docs`: Swagger UI rendering `/v1/openapi.json`, every file served from this process (swagger-ui-dist),
 * none from a CDN: the gateway may run offline, and the CSP allows no other origin.
 */
export function docsRouter(): Router {
  const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const files = new Map(SWAGGER_FILES.map((name) => [name, path.join(swaggerDir, name)]));
  const router = Router();
  router.use(compression());
  router.get('/', (_req: Request, res: Response) => {
    res.setHeader('Content-Security-Policy', PAGE_CSP);
    noCache(res);
    res.type('html').send(PAGE);
  });
  router.get('/assets/docs-init.js', (_req: Request, res: Response) => {
    noCache(res);
    res.type('js').send(INIT_SCRIPT);
  });
  router.get('/assets/:file', (req: Request, res: Response, next: NextFunction) => {
    const file = files.get(String(req.params.file));
    if (!file) {
      next();
      return;
    }
    // Unhashed names: the browser revalidates (Last-Modified, ETag) and gets a 304 while the version stays.
    res.sendFile(file, { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } }, (error?: NodeJS.ErrnoException) => {
      // ECONNABORTED: the browser went away; nothing to answer.
      if (error && !res.headersSent && error.code !== 'ECONNABORTED') next(error);
    });
  });
  return router;
}
