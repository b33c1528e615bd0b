/**
 * The built renderer served at '/' so `loupe serve` is the whole app in a browser. A file under
 * rendererDir is sent as is; any other GET that asks for HTML gets index.html (client-side routes);
 * everything else is the JSON 404 of the API. Written here (40 lines) rather than pulling in
 * @fastify/static because only this tiny, read-only subset is needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
};

/**
 * What a browser gets at '/' when this server has no built app (a checkout where the UI was never
 * built, issue 22.4): how to build it, instead of the API's JSON 404.
 */
const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Loupe: the app is not built</title>
<body style="font:15px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em">
<h1 style="font-size:20px">Loupe is running, but its app is not built here</h1>
<p>This server answers the API (see <a href="/openapi.json">/openapi.json</a>) but has no built web app to show.
In a checkout of the repository, build it once, then start the server again and open the link it prints:</p>
<pre style="background:#f3f3f3;padding:.6em 1em">npm run build:web
npm run serve</pre>
<p>The sign-in link is printed by <code>npm run serve</code> and by <code>npm run loupe -- url</code>.</p>
</body>`;

/** Returns true when it answered the request from rendererDir (or, with none, with how to build it). */
export function serveStatic(rendererDir: string | null, request: FastifyRequest, reply: FastifyReply): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (!rendererDir) {
    const at = request.url.split('?')[0];
    if (at !== '/' && !wantsHtml(request)) return false;
    reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(NOT_BUILT);
    return true;
  }
  const root = path.resolve(rendererDir);
  let rel: string;
  try {
    rel = decodeURIComponent(request.url.split('?')[0]!);
  } catch {
    return false;
  }
  // A NUL byte is never part of a file name (and fs throws on it): not found, not a 500.
  if (rel.includes('\0')) return false;
  const file = path.resolve(root, `.${rel}`);
  // Never leave rendererDir (../ and encoded variants resolve outside root and are refused).
  if (file !== root && !file.startsWith(root + path.sep)) return false;
  const target = isFile(file) ? file : rel === '/' || wantsHtml(request) ? path.join(root, 'index.html') : null;
  if (!target || !isFile(target)) return false;
  const immutable = target.includes(`${path.sep}assets${path.sep}`);
  reply
    .type(TYPES[path.extname(target)] ?? 'application/octet-stream')
    .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .send(fs.createReadStream(target));
  return true;
}

const isFile = (f: string) => fs.statSync(f, { throwIfNoEntry: false })?.isFile() ?? false;
const wantsHtml = (r: FastifyRequest) => (r.headers.accept ?? '').includes('text/html');
