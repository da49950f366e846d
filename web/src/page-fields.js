// Fields the page adds to the core's schema table: the model's label and the
// headline figures of the system (device peak, HBM capacity and bandwidth,
// NVLink and InfiniBand bandwidth). The system ones are sent as a preset
// override, {"preset": id, "device": {...}, "network": [...]}: arrays replace
// the preset's whole, so memory and network are copied from presets() and
// only the edited entry changes.
const BOTH = ['training', 'inference'];

export const PAGE_FIELDS = [
  { key: 'model.name', type: 'string', group: 'model', url: 'mnm', default: null, modes: BOTH, unit: '', help: 'Label shown with the results' },
  { key: 'system.peak_bf16_tflops', type: 'number', group: 'system', url: 'sbf', default: null, modes: BOTH, unit: 'TFLOP/s', min: 0.001, max: 1e6, help: 'Device dense bf16 matmul peak' },
  { key: 'system.hbm_GiB', type: 'number', group: 'system', url: 'shc', default: null, modes: BOTH, unit: 'GiB', min: 0.001, max: 1e6, help: 'Device memory (HBM) capacity' },
  { key: 'system.hbm_GBps', type: 'number', group: 'system', url: 'shb', default: null, modes: BOTH, unit: 'GB/s', min: 0.001, max: 1e7, help: 'Device memory (HBM) bandwidth' },
  { key: 'system.nvlink_GBps', type: 'number', group: 'system', url: 'snv', default: null, modes: BOTH, unit: 'GB/s', min: 0.001, max: 1e6, help: 'NVLink bandwidth per GPU, one direction' },
  { key: 'system.ib_GBps', type: 'number', group: 'system', url: 'sib', default: null, modes: BOTH, unit: 'GB/s', min: 0.001, max: 1e6, help: 'InfiniBand bandwidth per GPU, one direction' },
];

export function withPageFields(schema) {
  const fields = [...schema.fields];
  const at = fields.findIndex((f) => f.key.startsWith('model.'));
  fields.splice(at < 0 ? fields.length : at, 0, PAGE_FIELDS[0]);
  fields.push(...PAGE_FIELDS.slice(1));
  return { ...schema, fields };
}

export const isSystemField = (key) => key.startsWith('system.');

function hbmIndex(mem) {
  const i = mem.findIndex((m) => m && m.name === 'hbm');
  return i >= 0 ? i : mem.length - 1;
}

function tierIndex(net, which) {
  if (!net.length) return -1;
  const re = which === 'nvlink' ? /nvlink/i : /infiniband|^ib|ethernet|roce/i;
  const i = net.findIndex((t) => t && re.test(String(t.name)));
  if (i >= 0) return i;
  return which === 'nvlink' ? (net.length > 1 ? 0 : -1) : net.length - 1;
}

// The value of a system field in a preset's system object (for placeholders).
export function systemValue(key, system) {
  const dev = system?.device || {};
  const mem = Array.isArray(dev.memory) ? dev.memory : [];
  const net = Array.isArray(system?.network) ? system.network : [];
  const hbm = mem[hbmIndex(mem)];
  switch (key) {
    case 'system.peak_bf16_tflops':
      return dev.matmul_tflops?.bf16 ?? null;
    case 'system.hbm_GiB':
      if (!hbm) return null;
      return hbm.capacity_GiB ?? (Number.isFinite(hbm.capacity_MiB) ? hbm.capacity_MiB / 1024 : null);
    case 'system.hbm_GBps':
      return hbm?.bandwidth_GBps ?? null;
    case 'system.nvlink_GBps':
      return net[tierIndex(net, 'nvlink')]?.bandwidth_GBps ?? null;
    case 'system.ib_GBps':
      return net[tierIndex(net, 'ib')]?.bandwidth_GBps ?? null;
    default:
      return null;
  }
}

// id: preset id; system: that preset's system object; ov: {key: number}.
// Returns the id alone when nothing is overridden.
export function systemScenario(id, system, ov) {
  const keys = Object.keys(ov || {});
  if (!keys.length || !system) return id;
  const out = { preset: id };
  const device = {};
  if ('system.peak_bf16_tflops' in ov) device.matmul_tflops = { bf16: ov['system.peak_bf16_tflops'] };
  if ('system.hbm_GiB' in ov || 'system.hbm_GBps' in ov) {
    const mem = structuredClone(system.device?.memory || []);
    const i = hbmIndex(mem);
    if (i >= 0) {
      if ('system.hbm_GiB' in ov) {
        delete mem[i].capacity_MiB;
        mem[i].capacity_GiB = ov['system.hbm_GiB'];
      }
      if ('system.hbm_GBps' in ov) mem[i].bandwidth_GBps = ov['system.hbm_GBps'];
      device.memory = mem;
    }
  }
  if (Object.keys(device).length) out.device = device;
  if ('system.nvlink_GBps' in ov || 'system.ib_GBps' in ov) {
    const net = structuredClone(system.network || []);
    for (const [k, which] of [['system.nvlink_GBps', 'nvlink'], ['system.ib_GBps', 'ib']]) {
      if (!(k in ov)) continue;
      const i = tierIndex(net, which);
      if (i >= 0) net[i].bandwidth_GBps = ov[k];
    }
    out.network = net;
  }
  return out;
}
