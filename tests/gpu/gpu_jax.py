"""gpu_jax - a small JAX computation with JAX's default preallocation (75 %
of the GPU's memory taken by its allocator at start): the framework case of
the CUDA issue's snapshot goal.  Prints a checksum."""
import jax
import jax.numpy as jnp

x = jnp.arange(1 << 20, dtype=jnp.float32)
y = jnp.sin(x * 0.001) * 2.0 + 1.0
print("gpu_jax: sum %.3f on %s" % (float(y.sum()), jax.devices()[0].platform))
