"""Chapter 12's checks run on two virtual CPU devices (set before any device is used)."""
import minijax

minijax.config.update("jax_num_cpu_devices", 2)
