// Tiny static server for build/web on 127.0.0.1 (default port 8080), sending
// the page's strict Content-Security-Policy (scripts/csp.mjs) as a header too.
// Usage: node scripts/serve.mjs [--port N] [--dir PATH]
// Also importable: startServer({ dir, port }) -> Promise<{ server, url }>.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CSP_HEADER } from './csp.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const here = dirname(fileURLToPath(import.meta.url));
const defaultDir = resolve(here, '..', 'build', 'web');

export function startServer({ dir = defaultDir, port = 8080, host = '127.0.0.1' } = {}) {
  const base = resolve(dir);
  const server = createServer(async (req, res) => {
    const headers = {
      'Content-Security-Policy': CSP_HEADER,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, headers).end();
        return;
      }
      let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (path.endsWith('/')) path += 'index.html';
      const file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403, headers).end();
        return;
      }
      const info = await stat(file);
      if (!info.isFile()) throw new Error('not a file');
      const body = await readFile(file);
      headers['Content-Type'] = TYPES[extname(file)] || 'application/octet-stream';
      headers['Content-Length'] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      headers['Content-Type'] = 'text/plain; charset=utf-8';
      res.writeHead(404, headers).end('not found\n');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      ok({ server, url: `http://${host}:${p}/` });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
  };
  const port = Number(opt('--port', process.env.PORT || 8080));
  const dir = opt('--dir', defaultDir);
  const { url } = await startServer({ dir, port });
  console.log(`llmcalc: serving ${resolve(dir)} at ${url}`);
}
