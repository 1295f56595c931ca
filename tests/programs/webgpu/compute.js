// compute.js - WebGPU compute: a storage buffer updated by one dispatch,
// copied to a MAP_READ buffer and read back; prints a hash of the words
// and whether they equal the host's own result (run.sh).
const adapter = await navigator.gpu.requestAdapter();
console.log('adapter', JSON.stringify(adapter.info));
const device = await adapter.requestDevice();
const n = 4096;
const code = `
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  var x = data[i];
  for (var k = 0u; k < 16u; k++) { x = x * 1664525u + 1013904223u; }
  data[i] = x;
}`;
const module = device.createShaderModule({ code });
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
const buf = device.createBuffer({ size: n * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
const rb = device.createBuffer({ size: n * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const init = new Uint32Array(n); for (let i = 0; i < n; i++) init[i] = i * 7;
device.queue.writeBuffer(buf, 0, init);
const bg = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: buf } }] });
const enc = device.createCommandEncoder();
const pass = enc.beginComputePass(); pass.setPipeline(pipeline); pass.setBindGroup(0, bg); pass.dispatchWorkgroups(n / 64); pass.end();
enc.copyBufferToBuffer(buf, 0, rb, 0, n * 4);
device.queue.submit([enc.finish()]);
await rb.mapAsync(GPUMapMode.READ);
const out = new Uint32Array(rb.getMappedRange().slice(0));
rb.unmap();
let h = 2166136261 >>> 0; for (const v of out) { h ^= v; h = Math.imul(h, 16777619) >>> 0; }
let ok = true; for (let i = 0; i < n; i++) { let x = (i * 7) >>> 0; for (let k = 0; k < 16; k++) x = (Math.imul(x, 1664525) + 1013904223) >>> 0; if (x !== out[i]) { ok = false; break; } }
console.log('hash', h.toString(16), ok ? 'ok' : 'WRONG');
device.destroy();
