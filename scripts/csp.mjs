// The page's Content-Security-Policy: one constant for the <meta http-equiv>
// tag scripts/build-web.mjs writes into every HTML file it ships (so the
// policy holds on hosts that cannot set headers, such as GitHub Pages) and for
// the header scripts/serve.mjs sends.

// Scripts and styles only from the page's own files (WebAssembly compiled from
// them), images also from data: and blob: (chart export), no plugins, no
// <base>, no form submission.
export const CSP_DIRECTIVES = [
  ['default-src', "'self'"],
  ['script-src', "'self'", "'wasm-unsafe-eval'"],
  ['style-src', "'self'"],
  ['img-src', "'self'", 'data:', 'blob:'],
  ['connect-src', "'self'"],
  ['worker-src', "'self'"],
  ['object-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
];

export const CSP = CSP_DIRECTIVES.map((d) => d.join(' ')).join('; ');

// A header can carry what a <meta> tag cannot (frame-ancestors, report-to,
// sandbox). The page is meant to be embedded anywhere, so the dev server adds
// nothing and sends the same policy.
export const CSP_HEADER = CSP;

const META = `<meta http-equiv="Content-Security-Policy" content="${CSP}">`;

// Returns `html` with the policy's <meta> tag right after <meta charset>, before
// any stylesheet or script it must govern. Throws on HTML it cannot place it in.
export function injectCsp(html, name = 'HTML file') {
  if (/http-equiv\s*=\s*["']?content-security-policy/i.test(html)) {
    throw new Error(`${name}: already has a Content-Security-Policy <meta>; the build writes it from scripts/csp.mjs`);
  }
  const charset = /<meta\s+charset\s*=\s*["']?[\w-]+["']?\s*\/?>/i.exec(html);
  if (!charset) throw new Error(`${name}: no <meta charset> in <head> to place the Content-Security-Policy after`);
  const at = charset.index + charset[0].length;
  const before = html.slice(0, charset.index);
  if (/<(script|link|style)\b/i.test(before)) {
    throw new Error(`${name}: a <script>, <link> or <style> comes before <meta charset>; the policy would not cover it`);
  }
  return `${html.slice(0, at)}\n  ${META}${html.slice(at)}`;
}
