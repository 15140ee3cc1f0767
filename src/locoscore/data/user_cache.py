"""Reference files locoscore can download (the dataset, the gold errata): where they are
looked for, and how they are fetched into the user cache.

Every such file resolves the same way: an explicit path, else its environment variable, else
the copy `locoscore dataset fetch` saved in the user cache. A download is checked against the
pinned sha256 before it is written, atomically, so the cache never holds a wrong file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import platformdirs

from locoscore._io import write_bytes_atomic
from locoscore.errors import InputError


def user_cache_file(name: str) -> Path:
    return Path(platformdirs.user_cache_dir("locoscore")) / name


def resolve_input_path(explicit: str | Path | None, env_var: str, cached: Path) -> Path | None:
    """Explicit path, else `$env_var`, else the cached copy when it exists, else None."""
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get(env_var)
    if env:
        return Path(env)
    return cached if cached.exists() else None


def _unreachable(
    error: type[InputError], url: str, exc: Exception, manual_option: str
) -> InputError:
    return error(
        f"could not download {url} ({type(exc).__name__}); are you offline? "
        f"Download it by hand and pass {manual_option}"
    )


def _wrong_digest(error: type[InputError], url: str, digest: str, sha256: str) -> InputError:
    return error(f"downloaded file has sha256 {digest}, expected {sha256}; not saved", file=url)


def download_bytes_verified(
    url: str,
    sha256: str,
    *,
    manual_option: str,
    error: type[InputError] = InputError,
    timeout: float = 60.0,
) -> bytes:
    """The body of `url`, refused unless its sha256 is `sha256`.

    Failures raise `error` (an InputError: one line, exit 2); `manual_option` is the option
    that takes a copy downloaded by hand.
    """
    import httpx

    try:
        response = httpx.get(url, timeout=timeout, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise _unreachable(error, url, exc, manual_option) from None
    digest = hashlib.sha256(response.content).hexdigest()
    if digest != sha256:
        raise _wrong_digest(error, url, digest, sha256)
    return response.content


def download_verified(
    url: str,
    sha256: str,
    dest: Path,
    *,
    manual_option: str,
    error: type[InputError] = InputError,
    timeout: float = 60.0,
) -> Path:
    """`download_bytes_verified`, written to `dest` atomically (untouched on failure)."""
    data = download_bytes_verified(
        url, sha256, manual_option=manual_option, error=error, timeout=timeout
    )
    write_bytes_atomic(dest, data)
    return dest


def download_streamed_verified(
    url: str,
    sha256: str,
    dest: Path,
    *,
    manual_option: str,
    error: type[InputError] = InputError,
    timeout: float = 60.0,
    chunk_size: int = 1 << 20,
) -> Path:
    """`download_verified` for files too large to hold (LongMemEval's `_m` is 2.7 GB): the
    body goes to a temporary file beside `dest`, hashed on the way, and is renamed onto
    `dest` only when its sha256 matches (else removed: `dest` is never touched)."""
    import tempfile

    import httpx

    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as handle:
            try:
                with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
                    response.raise_for_status()
                    for chunk in response.iter_bytes(chunk_size):
                        digest.update(chunk)
                        handle.write(chunk)
            except httpx.HTTPError as exc:
                raise _unreachable(error, url, exc, manual_option) from None
            handle.flush()
            os.fsync(handle.fileno())
        if digest.hexdigest() != sha256:
            raise _wrong_digest(error, url, digest.hexdigest(), sha256)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    return dest
