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

/** Returns true when it answered the request from rendererDir. */
export function serveStatic(rendererDir: string | null, request: FastifyRequest, reply: FastifyReply): boolean {
  if (!rendererDir || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
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
