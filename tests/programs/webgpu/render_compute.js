// render_compute.js - WebGPU render and compute: 4x MSAA with a resolve,
// depth, a mipmapped texture uploaded by writeTexture (one copy per mip)
// and sampled, a vertex buffer mappedAtCreation, occlusion and timestamp
// queries, an atomic histogram by an indirect dispatch; ARG frames (5)
// read back, a hash of all of them printed (run.sh).
const adapter = await navigator.gpu.requestAdapter();
const feats = [...adapter.features].sort();
console.log('features', feats.join(','));
const want = ['timestamp-query', 'indirect-first-instance', 'depth32float-stencil8'].filter(f => adapter.features.has(f));
const device = await adapter.requestDevice({ requiredFeatures: want });
device.addEventListener?.('uncapturederror', e => { console.log('GPU ERROR', e.error.message); Deno.exit(3); });
const W = 128, H = 96;
const tex = device.createTexture({ size: [W, H], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC | GPUTextureUsage.TEXTURE_BINDING });
const msaa = device.createTexture({ size: [W, H], format: 'rgba8unorm', sampleCount: 4, usage: GPUTextureUsage.RENDER_ATTACHMENT });
const depth = device.createTexture({ size: [W, H], format: 'depth24plus', sampleCount: 4, usage: GPUTextureUsage.RENDER_ATTACHMENT });
// a sampled texture uploaded with writeTexture, mipmapped
const src = device.createTexture({ size: [32, 32], mipLevelCount: 2, format: 'rgba8unorm', usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST });
const px = new Uint8Array(32 * 32 * 4); for (let i = 0; i < px.length; i++) px[i] = (i * 37) & 255;
device.queue.writeTexture({ texture: src }, px, { bytesPerRow: 128 }, [32, 32]);
device.queue.writeTexture({ texture: src, mipLevel: 1 }, px.subarray(0, 16 * 16 * 4), { bytesPerRow: 64 }, [16, 16]);
const sampler = device.createSampler({ magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear', addressModeU: 'repeat', addressModeV: 'mirror-repeat' });
// vertex buffer mapped at creation
const N = 300;
const vb = device.createBuffer({ size: N * 3 * 16, usage: GPUBufferUsage.VERTEX, mappedAtCreation: true });
{ const f = new Float32Array(vb.getMappedRange()); for (let i = 0; i < N * 3; i++) { const t = i * 0.618; f[i*4] = Math.sin(t) * 0.9; f[i*4+1] = Math.cos(t * 1.3) * 0.9; f[i*4+2] = (i % 7) / 7; f[i*4+3] = 1; } vb.unmap(); }
const ub = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
const code = `
struct U { t: vec4f };
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var img: texture_2d<f32>;
struct VO { @builtin(position) p: vec4f, @location(0) uv: vec2f };
@vertex fn vs(@location(0) p: vec4f, @builtin(instance_index) ii: u32) -> VO {
  var o: VO; let k = f32(ii) * 0.05 + u.t.x;
  o.p = vec4f(p.x * cos(k) - p.y * sin(k), p.x * sin(k) + p.y * cos(k), p.z, 1.0);
  o.uv = p.xy * 2.0; return o; }
@fragment fn fs(i: VO) -> @location(0) vec4f { return textureSample(img, s, i.uv) * vec4f(1.0, 0.8, 0.6, 1.0); }`;
const mod = device.createShaderModule({ code });
const rp = await device.createRenderPipelineAsync({ layout: 'auto',
  vertex: { module: mod, entryPoint: 'vs', buffers: [{ arrayStride: 16, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x4' }] }] },
  fragment: { module: mod, entryPoint: 'fs', targets: [{ format: 'rgba8unorm', blend: { color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha' }, alpha: { srcFactor: 'one', dstFactor: 'zero' } } }] },
  primitive: { topology: 'triangle-list', cullMode: 'none' }, depthStencil: { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' }, multisample: { count: 4 } });
const bg = device.createBindGroup({ layout: rp.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: ub } }, { binding: 1, resource: sampler }, { binding: 2, resource: src.createView() }] });
// compute: a histogram of the rendered image with atomics, indirect dispatch
const cmod = device.createShaderModule({ code: `
@group(0) @binding(0) var img: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>, 256>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) g: vec3u) {
  let d = textureDimensions(img); if (g.x >= d.x || g.y >= d.y) { return; }
  let c = textureLoad(img, vec2i(g.xy), 0); atomicAdd(&hist[u32(c.r * 255.0)], 1u); }` });
const cp = device.createComputePipeline({ layout: 'auto', compute: { module: cmod, entryPoint: 'main' } });
const hist = device.createBuffer({ size: 1024, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
const ind = device.createBuffer({ size: 12, usage: GPUBufferUsage.INDIRECT, mappedAtCreation: true });
new Uint32Array(ind.getMappedRange()).set([W / 8, H / 8, 1]); ind.unmap();
const cbg = device.createBindGroup({ layout: cp.getBindGroupLayout(0), entries: [{ binding: 0, resource: tex.createView() }, { binding: 1, resource: { buffer: hist } }] });
const qs = want.includes('timestamp-query') ? device.createQuerySet({ type: 'timestamp', count: 2 }) : null;
const occ = device.createQuerySet({ type: 'occlusion', count: 1 });
const qb = device.createBuffer({ size: 256, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
const rowBytes = 512; // 128*4
const out = device.createBuffer({ size: rowBytes * H, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const hout = device.createBuffer({ size: 1024 + 8, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
let total = 2166136261 >>> 0;
const FR = Number(Deno.args[0] ?? 5);
for (let f = 0; f < FR; f++) {
  device.queue.writeBuffer(ub, 0, new Float32Array([f * 0.3, 0, 0, 0]));
  const e = device.createCommandEncoder();
  const p = e.beginRenderPass({ colorAttachments: [{ view: msaa.createView(), resolveTarget: tex.createView(), loadOp: 'clear', storeOp: 'discard', clearValue: [0.1, 0.2, 0.3, 1] }],
    depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthClearValue: 1, depthStoreOp: 'discard' }, occlusionQuerySet: occ });
  p.setPipeline(rp); p.setBindGroup(0, bg); p.setVertexBuffer(0, vb); p.setViewport(0, 0, W, H, 0, 1); p.setScissorRect(4, 4, W - 8, H - 8);
  p.beginOcclusionQuery(0); p.draw(N * 3, 3); p.endOcclusionQuery(); p.end();
  e.clearBuffer(hist);
  const c = e.beginComputePass(qs ? { timestampWrites: { querySet: qs, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } } : {});
  c.setPipeline(cp); c.setBindGroup(0, cbg); c.dispatchWorkgroupsIndirect(ind, 0); c.end();
  e.resolveQuerySet(occ, 0, 1, qb, 0);
  e.copyTextureToBuffer({ texture: tex }, { buffer: out, bytesPerRow: rowBytes }, [W, H]);
  e.copyBufferToBuffer(hist, 0, hout, 0, 1024);
  e.copyBufferToBuffer(qb, 0, hout, 1024, 8);
  device.queue.submit([e.finish()]);
  await device.queue.onSubmittedWorkDone();
  await out.mapAsync(GPUMapMode.READ); await hout.mapAsync(GPUMapMode.READ);
  const img = new Uint8Array(out.getMappedRange()); const hh = new Uint32Array(hout.getMappedRange());
  let sum = 0; for (let i = 0; i < 256; i++) sum += hh[i];
  for (const v of img) { total ^= v; total = Math.imul(total, 16777619) >>> 0; }
  for (let i = 0; i < 257; i++) { total ^= hh[i]; total = Math.imul(total, 16777619) >>> 0; }
  if (sum !== W * H) { console.log('histogram sums to', sum); Deno.exit(1); }
  console.log('frame', f, 'occlusion', hh[256] > 0 ? 'some' : 'none', 'first px', img.slice(0, 4).join(','));
  out.unmap(); hout.unmap();
}
console.log('hash', total.toString(16));
device.destroy();
