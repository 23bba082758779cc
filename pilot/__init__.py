"""gpu-pilot: the offline pilot benchmark that measures a real fine-tuning run on the machine you rented.

Needs only PyTorch and NumPy; writes one JSON result whose contract (schema, validator, problem codes)
is `pilot.result`.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
