"""The placements of real client libraries, for shardlab's comparison tests
(bench-cli/tests/clients.rs): for every key of KEYS_FILE (one key a line, hex-encoded, so
that an empty key has an empty line), the index of the server the library picks.

    real_clients.py ketama N KEYS_FILE [WEIGHTS]       uhashring's ketama ring, nodes shard0..
    real_clients.py pymemcache-rendezvous N KEYS_FILE  pymemcache's RendezvousHash, shard0..
    real_clients.py python-memcached N KEYS_FILE       python-memcached's Client._get_server
    real_clients.py memcached PORTS KEYS_FILE          python-memcached sets every key on the
                                                       memcached servers 127.0.0.1:PORT (comma-
                                                       separated); prints the index of the server
                                                       that holds it, each asked alone
    real_clients.py vitess-xxhash - KEYS_FILE          the keyspace id (hex) of xxhash's xxh64

Keys are decoded as UTF-8 for the libraries that take strings. The versions are pinned in
scripts/requirements-systems.txt.
"""

import sys


def read_keys(path):
    with open(path, "rb") as f:
        return [bytes.fromhex(line.strip().decode("ascii")) for line in f.read().split(b"\n")[:-1]]


def ketama(n, keys, weights):
    from uhashring import HashRing

    names = [f"shard{i}" for i in range(n)]
    if weights:
        nodes = {name: {"weight": int(w)} for name, w in zip(names, weights.split(","))}
    else:
        nodes = names
    ring = HashRing(nodes=nodes, hash_fn="ketama")
    return [int(ring.get_node(k.decode("utf-8"))[len("shard"):]) for k in keys]


def pymemcache_rendezvous(n, keys):
    from pymemcache.client.rendezvous import RendezvousHash

    ring = RendezvousHash(nodes=[f"shard{i}" for i in range(n)])
    return [int(ring.get_node(k.decode("utf-8"))[len("shard"):]) for k in keys]


def python_memcached(n, keys):
    import memcache

    servers = [f"127.0.0.1:{1 + i}" for i in range(n)]
    client = memcache.Client(servers)
    # Every server counts as alive: the choice is the first bucket tried.
    for server in client.servers:
        server.connect = lambda: 1
    order = {id(s): i for i, s in enumerate(client.servers)}
    return [order[id(client._get_server(k)[0])] for k in keys]


def memcached(ports, keys):
    import memcache

    addresses = [f"127.0.0.1:{p}" for p in ports.split(",")]
    client = memcache.Client(addresses)
    for i, k in enumerate(keys):
        if not client.set(k, str(i)):
            raise SystemExit(f"set {k!r} failed")
    alone = [memcache.Client([a]) for a in addresses]
    out = []
    for i, k in enumerate(keys):
        holders = [j for j, c in enumerate(alone) if c.get(k) == str(i)]
        if len(holders) != 1:
            raise SystemExit(f"key {k!r} is on servers {holders}")
        out.append(holders[0])
    return out


def vitess_xxhash(keys):
    import xxhash

    return [xxhash.xxh64_intdigest(k).to_bytes(8, "little").hex() for k in keys]


def main():
    scheme, n, path = sys.argv[1:4]
    keys = read_keys(path)
    if scheme == "ketama":
        out = ketama(int(n), keys, sys.argv[4] if len(sys.argv) > 4 else "")
    elif scheme == "pymemcache-rendezvous":
        out = pymemcache_rendezvous(int(n), keys)
    elif scheme == "python-memcached":
        out = python_memcached(int(n), keys)
    elif scheme == "memcached":
        out = memcached(n, keys)
    elif scheme == "vitess-xxhash":
        out = vitess_xxhash(keys)
    else:
        raise SystemExit(f"unknown scheme {scheme}")
    sys.stdout.write("".join(f"{x}\n" for x in out))


if __name__ == "__main__":
    main()
