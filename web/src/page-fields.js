// Fields the page adds to the core's schema table: the model's label and the
// editable figures of the system (peaks, memory levels, network tiers, node
// size, GEMM efficiency). The system ones are sent as a preset override,
// {"preset": id, "device": {...}, "network": [...]}: objects merge into the
// preset key by key (core/src/parse.cpp), arrays replace it whole, so the
// memory and network arrays are copied from presets() and only the edited
// entry changes. One descriptor per field says where its value lives.
const BOTH = ['training', 'inference'];

const num = (key, url, unit, max, help) => ({ key, type: 'number', group: 'system', url, default: null, modes: BOTH, unit, min: 0.001, max, help });

export const PAGE_FIELDS = [
  { key: 'model.name', type: 'string', group: 'model', url: 'mnm', default: null, modes: BOTH, unit: '', help: 'Label shown with the results' },
  num('system.peak_bf16_tflops', 'sbf', 'TFLOP/s', 1e6, 'Device dense bf16 matmul peak'),
  num('system.hbm_GiB', 'shc', 'GiB', 1e6, 'Device memory (HBM) capacity'),
  num('system.hbm_GBps', 'shb', 'GB/s', 1e7, 'Device memory (HBM) bandwidth'),
  num('system.nvlink_GBps', 'snv', 'GB/s', 1e6, 'NVLink bandwidth per GPU, one direction'),
  num('system.ib_GBps', 'sib', 'GB/s', 1e6, 'InfiniBand bandwidth per GPU, one direction'),
  num('system.peak_fp8_tflops', 'sf8', 'TFLOP/s', 1e6, 'Device dense fp8 matmul peak (empty: none)'),
  num('system.l2_MiB', 'sl2', 'MiB', 1e5, 'L2 cache capacity'),
  num('system.l2_GBps', 'slb', 'GB/s', 1e7, 'L2 cache bandwidth'),
  num('system.matmul_eff', 'sme', '', 1, 'Sustained 16-bit GEMM throughput / peak (library ceiling)'),
  { ...num('system.gpus_per_node', 'sgn', 'GPUs', 1e5, 'GPUs per node (one NVLink domain unless the tier says more)'), type: 'int', min: 1 },
  { ...num('system.nvlink_span', 'sns', 'GPUs', 1e6, 'GPUs in one NVLink domain'), type: 'int', min: 1 },
];

// Where each system field lives: in the device object (merged), in a memory
// level or a network tier (arrays, copied whole), or at the system's top.
const WHERE = {
  'system.peak_bf16_tflops': { device: ['matmul_tflops', 'bf16'] },
  'system.peak_fp8_tflops': { device: ['matmul_tflops', 'fp8'] },
  'system.matmul_eff': { device: ['efficiency', 'matmul', 'bf16'] },
  'system.hbm_GiB': { memory: 'hbm', field: 'capacity_GiB' },
  'system.hbm_GBps': { memory: 'hbm', field: 'bandwidth_GBps' },
  'system.l2_MiB': { memory: 'l2', field: 'capacity_MiB' },
  'system.l2_GBps': { memory: 'l2', field: 'bandwidth_GBps' },
  'system.nvlink_GBps': { tier: 'nvlink', field: 'bandwidth_GBps' },
  'system.nvlink_span': { tier: 'nvlink', field: 'span_gpus' },
  'system.ib_GBps': { tier: 'ib', field: 'bandwidth_GBps' },
  'system.gpus_per_node': { top: 'gpus_per_node' },
};

export function withPageFields(schema) {
  const fields = [...schema.fields];
  const at = fields.findIndex((f) => f.key.startsWith('model.'));
  fields.splice(at < 0 ? fields.length : at, 0, PAGE_FIELDS[0]);
  fields.push(...PAGE_FIELDS.slice(1));
  return { ...schema, fields };
}

export const isSystemField = (key) => key.startsWith('system.');

function memoryIndex(mem, name) {
  const i = mem.findIndex((m) => m && m.name === name);
  if (i >= 0 || name !== 'hbm') return i;
  return mem.length - 1;  // the level farthest from the cores is device memory
}

function tierIndex(net, which) {
  if (!net.length) return -1;
  const re = which === 'nvlink' ? /nvlink/i : /infiniband|^ib|ethernet|roce/i;
  const i = net.findIndex((t) => t && re.test(String(t.name)));
  if (i >= 0) return i;
  return which === 'nvlink' ? (net.length > 1 ? 0 : -1) : net.length - 1;
}

// Capacities may be given in GiB or MiB: read either in the field's unit.
function capacity(level, unit) {
  if (!level) return null;
  const mib = Number.isFinite(level.capacity_MiB) ? level.capacity_MiB : Number.isFinite(level.capacity_GiB) ? level.capacity_GiB * 1024 : null;
  if (mib === null) return null;
  return unit === 'capacity_GiB' ? mib / 1024 : mib;
}

// The value of a system field in a preset's system object (for placeholders).
export function systemValue(key, system) {
  const w = WHERE[key];
  if (!w || !system) return null;
  const dev = system.device || {};
  if (w.device) {
    const v = w.device.reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), dev);
    if (typeof v === 'number') return v;
    // efficiency.matmul may be one number for every precision
    return key === 'system.matmul_eff' && typeof dev.efficiency?.matmul === 'number' ? dev.efficiency.matmul : null;
  }
  if (w.memory) {
    const mem = Array.isArray(dev.memory) ? dev.memory : [];
    const level = mem[memoryIndex(mem, w.memory)];
    return w.field.startsWith('capacity') ? capacity(level, w.field) : level?.[w.field] ?? null;
  }
  if (w.tier) {
    const net = Array.isArray(system.network) ? system.network : [];
    return net[tierIndex(net, w.tier)]?.[w.field] ?? null;
  }
  return system[w.top] ?? null;
}

function setPath(obj, path, value) {
  let o = obj;
  for (const k of path.slice(0, -1)) o = o[k] && typeof o[k] === 'object' ? o[k] : (o[k] = {});
  o[path[path.length - 1]] = value;
}

// id: preset id; system: that preset's system object; ov: {key: number}.
// Returns the id alone when nothing is overridden.
export function systemScenario(id, system, ov) {
  const keys = Object.keys(ov || {}).filter((k) => WHERE[k]);
  if (!keys.length || !system) return id;
  const out = { preset: id };
  const device = {};
  let mem = null;
  let net = null;
  for (const key of keys) {
    const w = WHERE[key];
    const v = ov[key];
    if (w.device) {
      // A single efficiency number becomes the object form, keeping its value for the others.
      if (key === 'system.matmul_eff' && typeof system.device?.efficiency?.matmul === 'number')
        setPath(device, ['efficiency', 'matmul'], { bf16: system.device.efficiency.matmul });
      setPath(device, w.device, v);
    } else if (w.memory) {
      mem = mem || structuredClone(system.device?.memory || []);
      const i = memoryIndex(mem, w.memory);
      if (i < 0) continue;
      if (w.field.startsWith('capacity')) {
        delete mem[i].capacity_MiB;
        delete mem[i].capacity_GiB;
      }
      mem[i][w.field] = v;
    } else if (w.tier) {
      net = net || structuredClone(system.network || []);
      const i = tierIndex(net, w.tier);
      if (i >= 0) net[i][w.field] = v;
    } else {
      out[w.top] = v;
    }
  }
  if (mem) device.memory = mem;
  if (Object.keys(device).length) out.device = device;
  if (net) out.network = net;
  return out;
}
