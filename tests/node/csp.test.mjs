// The Content-Security-Policy constant (scripts/csp.mjs): as strict as the page
// needs, placed by the build before anything it governs, and the same policy
// in the dev server's header and in every built HTML file.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CSP, CSP_HEADER, injectCsp } from '../../scripts/csp.mjs';
import { repoRoot } from './wasm.mjs';

const parse = (policy) => Object.fromEntries(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));

test('the policy allows only the page itself, wasm, and data:/blob: images', () => {
  assert.deepEqual(parse(CSP), {
    'default-src': ["'self'"],
    'script-src': ["'self'", "'wasm-unsafe-eval'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'connect-src': ["'self'"],
    'worker-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
  });
  assert.doesNotMatch(CSP, /'unsafe-|\*|frame-ancestors|report-|sandbox/, 'nothing a <meta> ignores or that weakens it');
});

test('the dev server header carries every directive of the <meta> policy, unchanged', () => {
  const header = parse(CSP_HEADER);
  for (const [k, v] of Object.entries(parse(CSP))) assert.deepEqual(header[k], v, k);
});

test('injectCsp puts the <meta> right after <meta charset>, before stylesheets and scripts', () => {
  const html = '<!doctype html><html><head>\n  <meta charset="utf-8">\n  <link rel="stylesheet" href="a.css"><script src="b.js"></script></head></html>';
  const out = injectCsp(html);
  const meta = out.indexOf('http-equiv="Content-Security-Policy"');
  assert.ok(meta > out.indexOf('charset') && meta < out.indexOf('<link'), out);
  assert.ok(out.includes(`content="${CSP}"`));
  assert.equal(out.replace(/\n\s*<meta http-equiv[^>]*>/, ''), html, 'nothing else changes');
});

test('injectCsp refuses HTML it cannot protect, naming the file', () => {
  assert.throws(() => injectCsp('<html><head><title>x</title></head></html>', 'web/x.html'), /web\/x\.html: no <meta charset>/);
  assert.throws(() => injectCsp('<head><script src="a.js"></script><meta charset="utf-8">', 'web/y.html'), /web\/y\.html: a <script>.*before <meta charset>/);
  assert.throws(() => injectCsp(injectCsp('<head><meta charset="utf-8"></head>')), /already has a Content-Security-Policy/);
});

test('every HTML source takes the policy, and every built HTML file carries it', (t) => {
  const sources = readdirSync(join(repoRoot, 'web')).filter((f) => f.endsWith('.html'));
  assert.ok(sources.includes('index.html'));
  for (const f of sources) injectCsp(readFileSync(join(repoRoot, 'web', f), 'utf8'), f);
  const built = join(repoRoot, 'build', 'web');
  if (!existsSync(built)) return t.skip('build/web not built (scripts/build.sh web)');
  for (const f of sources) {
    const html = readFileSync(join(built, f), 'utf8');
    assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="${CSP}">`), `build/web/${f} carries the policy`);
  }
});
