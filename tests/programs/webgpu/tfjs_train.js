// tfjs_train.js - TensorFlow.js on its WebGPU backend: a small CNN
// (conv2d, max pooling, dense) with seeded weights trained five epochs
// by SGD on fixed data; the losses and a hash of its predictions printed
// (run.sh).
import * as tf from '@tensorflow/tfjs-core';
import * as tfl from '@tensorflow/tfjs-layers';
import '@tensorflow/tfjs-backend-webgpu';
await tf.setBackend('webgpu'); await tf.ready();
const m = tfl.sequential();
m.add(tfl.layers.conv2d({inputShape: [16, 16, 1], filters: 8, kernelSize: 3, activation: 'relu', kernelInitializer: tfl.initializers.randomUniform({minval: -0.1, maxval: 0.1, seed: 1})}));
m.add(tfl.layers.maxPooling2d({poolSize: 2}));
m.add(tfl.layers.flatten());
m.add(tfl.layers.dense({units: 10, activation: 'softmax', kernelInitializer: tfl.initializers.randomUniform({minval: -0.1, maxval: 0.1, seed: 2})}));
m.compile({optimizer: tf.train.sgd(0.1), loss: 'categoricalCrossentropy'});
const xs = tf.tensor4d(Array.from({length: 32*256}, (_, i) => ((i * 7919) % 101) / 101), [32, 16, 16, 1]);
const ys = tf.oneHot(tf.tensor1d(Array.from({length: 32}, (_, i) => i % 10), 'int32'), 10);
const hist = await m.fit(xs, ys, {epochs: 5, batchSize: 8, shuffle: false, verbose: 0});
const p = await m.predict(xs).data();
let h = 0; for (const v of p) h = (h * 31 + Math.round(v * 1e4)) >>> 0;
console.log('loss', hist.history.loss.map(v => v.toFixed(4)).join(' '), 'hash', h.toString(16));
