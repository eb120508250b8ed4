import pytest


@pytest.fixture
def serve_known(server, dataset_root, monkeypatch):
    """Serves ``data`` as the known file ``url`` through the mirror setting.

    The registered checksum is replaced by the SHA-256 of the test data.
    """
    import hashlib

    from catena.dataset import download

    monkeypatch.setenv('CATENA_DATASET_MIRROR', server.base + '/mirror')

    def serve(url, data):
        entry = download.get_known_file(url)
        assert entry is not None, url
        monkeypatch.setitem(download._known_files, url, download.KnownFile(
            url, entry.key, entry.name, sha256=hashlib.sha256(data).hexdigest()))
        server.files[f'/mirror/{entry.key}/{entry.name}'] = data
        return entry

    return serve
