// tfjs_ops.js - TensorFlow.js on its WebGPU backend: matMul, relu,
// softmax and conv2d, a hash of the results printed (run.sh).
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-webgpu';
await tf.setBackend('webgpu');
await tf.ready();
console.log('backend', tf.getBackend());
const a = tf.tensor2d(Array.from({length: 64*64}, (_, i) => (i % 17) / 17), [64, 64]);
const b = tf.tensor2d(Array.from({length: 64*64}, (_, i) => (i % 13) / 13), [64, 64]);
let c = tf.matMul(a, b);
c = tf.relu(tf.sub(c, 10));
const s = tf.softmax(c);
const conv = tf.conv2d(tf.reshape(a, [1, 64, 64, 1]), tf.ones([3, 3, 1, 4]), 1, 'same');
const d = await s.data();
const e = await conv.data();
let h = 0; for (const v of d) h = (h * 31 + Math.round(v * 1e4)) >>> 0; for (const v of e) h = (h * 31 + Math.round(v * 1e3)) >>> 0;
console.log('hash', h.toString(16), d.length, e.length);
