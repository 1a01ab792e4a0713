"""The wheel carries native libraries (libbp and what it needs) but no extension module:
it is for this platform and any Python 3, not pure (bindings/python/build-wheel.sh)."""
from setuptools import Distribution, setup
from wheel.bdist_wheel import bdist_wheel


class NativeLibraries(Distribution):
    def has_ext_modules(self):  # installs into platlib, and the wheel is not pure
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):  # no CPython ABI is used: ctypes loads libbp
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(distclass=NativeLibraries, cmdclass={"bdist_wheel": PlatformWheel})
