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
    chunk_size: int = 1 << 20,
) -> Path:
    """The body of `url` saved as `dest`, refused unless its sha256 is `sha256`.

    Streamed, so that a file too large to hold (LongMemEval's `_m` is 2.7 GB) is never held:
    the body goes to a temporary file beside `dest`, hashed on the way, and is renamed onto
    `dest` only when its sha256 matches (else removed, with any folder made for it: `dest`
    is never touched). Failures
    raise `error`, as `download_bytes_verified`'s do."""
    import tempfile

    import httpx

    # the folders made for it, deepest first: removed again when nothing is saved
    made = [folder for folder in (dest.parent, *dest.parent.parents) if not folder.exists()]
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    saved = False
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
        saved = True
    finally:
        tmp.unlink(missing_ok=True)
        for folder in [] if saved else made:
            folder.rmdir()
    return dest
