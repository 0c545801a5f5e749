"""The PEP 517 build backend of `pip install .`: CMake builds the module (the target
codesim_python and the libraries it links, not the tests or benchmarks) in build/ (or
$CODESIM_BUILD_DIR), then the package it lays out in build/python/codesim is zipped into a wheel. It needs nothing beyond the
standard library and what scripts/setup installs, so it works without a package index."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = "codesim"
SUMMARY = "Discrete-event simulator of unreliable clusters running coded DNN arithmetic"


def _version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(codesim VERSION ([0-9.]+)", text).group(1)


def _metadata() -> str:
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.9\n")


def _tag() -> str:
    interpreter = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{interpreter}-{interpreter}-{platform}"


def _dist_info() -> str:
    return f"{NAME}-{_version()}.dist-info"


def _build_package() -> Path:
    """Builds the module, configuring the build directory first when it has no configuration
    (with the defaults of scripts/build, so that a later scripts/test finds its tests; an existing
    configuration is kept); returns build/python/codesim."""
    build = Path(os.environ.get("CODESIM_BUILD_DIR", ROOT / "build"))
    if not build.is_absolute():
        build = ROOT / build
    cache = build / "CMakeCache.txt"
    if not cache.exists():
        # The interpreter the environment was made from: a virtual environment may be deleted,
        # its base stays (and has the same extension ABI).
        python = getattr(sys, "_base_executable", sys.executable)
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DCODESIM_PYTHON_MODULE=ON", f"-DPython3_EXECUTABLE={python}"],
                       check=True, stdout=sys.stderr)
    elif "CODESIM_PYTHON_MODULE:BOOL=ON" not in cache.read_text(errors="replace"):
        # Configured before pybind11 was installed: the module is switched on, the rest kept.
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCODESIM_PYTHON_MODULE=ON"],
                       check=True, stdout=sys.stderr)
    subprocess.run(["cmake", "--build", str(build), "--target", "codesim_python", "-j",
                    str(os.cpu_count() or 1)], check=True, stdout=sys.stderr)
    package = build / "python" / NAME
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if not (package / f"_codesim{suffix}").exists():
        built = sorted(p.name for p in package.glob("_codesim*"))
        raise RuntimeError(f"{package} has {built or 'no module'}, not _codesim{suffix} for this "
                           f"Python ({sys.executable}); build with -DPython3_EXECUTABLE="
                           f"{sys.executable} or set CODESIM_BUILD_DIR to another directory")
    return package


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    directory = Path(metadata_directory) / _dist_info()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "METADATA").write_text(_metadata())
    return directory.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build_package()
    wheel = Path(wheel_directory) / f"{NAME}-{_version()}-{_tag()}.whl"
    files = {f"{NAME}/{p.relative_to(package).as_posix()}": p.read_bytes()
             for p in sorted(package.rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts}
    info = _dist_info()
    files[f"{info}/METADATA"] = _metadata().encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: codesim_build\n"
                              f"Root-Is-Purelib: false\nTag: {_tag()}\n").encode()
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            entry.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return wheel.name


def build_sdist(sdist_directory, config_settings=None):
    """The tracked files of the repository (git ls-files) as NAME-VERSION.tar.gz."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    base = f"{NAME}-{_version()}"
    archive_path = Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(archive_path, "w:gz") as archive:
        for name in filter(None, listed):
            archive.add(ROOT / name, arcname=f"{base}/{name}", recursive=False)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return archive_path.name
