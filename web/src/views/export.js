// Export: the scenario and its result as JSON, the op table as CSV, and each
// chart as a standalone SVG or a PNG (the SVG drawn onto a canvas). Files are
// handed to the browser through blob: URLs, which the CSP allows.

const CSV_COLUMNS = ['index', 'name', 'phase', 'kind', 'count', 'flops', 'bytes_hbm', 'bytes_l2', 'bytes_smem', 'arithmetic_intensity', 'time_s', 'total_time_s', 'bound'];

function csvCell(v) {
  if (v === undefined || v === null || (typeof v === 'number' && !Number.isFinite(v))) return '';
  const s = String(v);
  // Quote when needed; a leading = + - @ would be a formula in a spreadsheet.
  const safe = /^[=+\-@\t\r]/.test(s) && typeof v !== 'number' ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function opsToCsv(result) {
  const lines = [CSV_COLUMNS.join(',')];
  (result?.ops || []).forEach((op, i) => {
    const b = op && typeof op.bytes === 'object' && op.bytes ? op.bytes : {};
    const count = Number.isFinite(op?.count) ? op.count : 1;
    const row = [i + 1, op?.name, op?.phase, op?.kind, op?.count, op?.flops, b.hbm, b.l2, b.smem, op?.arithmetic_intensity, op?.time_s, Number.isFinite(op?.time_s) ? op.time_s * count : null, op?.bound];
    lines.push(row.map(csvCell).join(','));
  });
  return lines.join('\r\n') + '\r\n';
}

export function resultJson(scenario, result) {
  return JSON.stringify({ scenario, result }, null, 2) + '\n';
}

export function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// Computed style properties copied onto the clone as presentation attributes,
// so the exported file looks like the page without the page's stylesheet.
const PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity', 'font-size', 'font-family', 'font-weight'];

export function standaloneSvg(node) {
  const clone = node.cloneNode(true);
  const src = [node, ...node.querySelectorAll('*')];
  const dst = [clone, ...clone.querySelectorAll('*')];
  src.forEach((s, i) => {
    const cs = getComputedStyle(s);
    for (const p of PROPS) {
      const v = cs.getPropertyValue(p);
      if (v) dst[i].setAttribute(p, v);
    }
    dst[i].removeAttribute('class');
  });
  const vb = node.viewBox?.baseVal;
  const w = vb && vb.width ? vb.width : node.clientWidth || 640;
  const h = vb && vb.height ? vb.height : node.clientHeight || 360;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(w));
  clone.setAttribute('height', String(h));
  const bg = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', getComputedStyle(document.body).backgroundColor || '#fff');
  clone.insertBefore(bg, clone.firstChild);
  const text = new XMLSerializer().serializeToString(clone);
  return { text: `<?xml version="1.0" encoding="UTF-8"?>\n${text}\n`, width: w, height: h };
}

export function svgToPngBlob(svgText, width, height, scale = 2) {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
    const img = new Image();
    img.onload = () => {
      try {
        const canvas = document.createElement('canvas');
        canvas.width = Math.round(width * scale);
        canvas.height = Math.round(height * scale);
        const ctx = canvas.getContext('2d');
        ctx.scale(scale, scale);
        ctx.drawImage(img, 0, 0, width, height);
        URL.revokeObjectURL(url);
        canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('canvas gave no PNG'))), 'image/png');
      } catch (err) {
        reject(err);
      }
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error('the SVG could not be drawn'));
    };
    img.src = url;
  });
}

export async function exportChart(svgNode, baseName, format) {
  const { text, width, height } = standaloneSvg(svgNode);
  if (format === 'svg') download(`${baseName}.svg`, new Blob([text], { type: 'image/svg+xml' }));
  else download(`${baseName}.png`, await svgToPngBlob(text, width, height));
}
