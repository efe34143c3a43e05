"""How a `[generate]` spec draws each group's numbers: a hash of (seed, group index, field), the same in every engine
and in Spark's array lambdas. The generator (`rmqplan.generated.generate`) makes groups from these draws; the fleet's
weighing (`rmqplan.model.fleet_size`) reads a group's size from them without making it."""

from __future__ import annotations

from rmqplan.model.fleet import GenerateSpec

MODULUS = 2_147_483_647  # 2^31 - 1
COLLIDE_SCALE = 1_000_000  # colliding_client_ids is compared in millionths
COLLIDING_CLIENT_VERSION = "4.5.1"  # colliding groups: pid 1 in containers on a client older than 4.9.0

# Fields: what each hash draws.
F_INSTANCES = 1
F_COLLIDE = 2
F_STRATEGY = 3
F_HOST = 4  # the shared host of a colliding group
F_QUEUES = 16  # + broker index
F_PROCESS = 5  # the hosts/pids of a group's processes
F_NANOTIME = 6  # their nanotimes
# Per process i a single multiply-add on the group's draw (cheap inside Spark's interpreted array lambdas).
PROCESS_STEP = 1_234_567_891
NANOTIME_STEP = 987_654_323


def mix(x: int) -> int:
    x = (x * 1_103_515_245 + 12_345) % MODULUS
    x ^= x >> 16
    x = (x * 1_664_525 + 1_013_904_223) % MODULUS
    return x ^ (x >> 13)


def seed_state(seed: int) -> int:
    """The seed folded into [0, 2^31-1): computed once in Python and passed to Spark as a literal."""
    return mix(seed % MODULUS)


def field_hash(state: int, g: int, f: int) -> int:
    """A number in [0, 2^31) for (seed, group index, field); `state` is `seed_state(seed)`."""
    return mix((mix((state + g) % MODULUS) + f) % MODULUS)


def mix_np(x):
    """`mix` over an int64 array (every product stays below 2^62)."""
    x = (x * 1_103_515_245 + 12_345) % MODULUS
    x ^= x >> 16
    x = (x * 1_664_525 + 1_013_904_223) % MODULUS
    return x ^ (x >> 13)


def field_np(group_state, f: int):
    """`field_hash` over an array of groups' `mix((state + g) % MODULUS)`."""
    return mix_np((group_state + f) % MODULUS)


def collide_threshold(spec: GenerateSpec) -> int:
    return round(spec.colliding_client_ids * COLLIDE_SCALE)


def draw(h: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return low + h % (high - low + 1)


def drawn_size(spec: GenerateSpec, g: int, state: int) -> tuple[int, int, bool]:
    """(processes, read queues over its brokers, whether its processes share one client id under
    CONSISTENT_HASH) of generated group `g` (`state`: `seed_state(spec.seed)`), as the generator draws them."""
    n = draw(field_hash(state, g, F_INSTANCES), spec.instances)
    colliding = field_hash(state, g, F_COLLIDE) % COLLIDE_SCALE < collide_threshold(spec)
    strategies = tuple(spec.strategies) or ("AVG",)
    strategy = strategies[field_hash(state, g, F_STRATEGY) % len(strategies)]
    queues = sum(draw(field_hash(state, g, F_QUEUES + b), spec.queues) for b in range(spec.brokers))
    return n, queues, colliding and strategy == "CONSISTENT_HASH"


def drawn_sizes(spec: GenerateSpec, start: int, stop: int):
    """`drawn_size` of the groups `start <= g < stop` as arrays (processes, queues, hashed together)."""
    import numpy as np

    g = np.arange(start, stop, dtype=np.int64)
    gs = mix_np((seed_state(spec.seed) + g) % MODULUS)
    lo, hi = spec.instances
    n = lo + field_np(gs, F_INSTANCES) % (hi - lo + 1)
    colliding = field_np(gs, F_COLLIDE) % COLLIDE_SCALE < collide_threshold(spec)
    strategies = tuple(spec.strategies) or ("AVG",)
    hashing = np.array([s == "CONSISTENT_HASH" for s in strategies])
    hashed = colliding & hashing[field_np(gs, F_STRATEGY) % len(strategies)]
    qlo, qhi = spec.queues
    queues = sum(qlo + field_np(gs, F_QUEUES + b) % (qhi - qlo + 1) for b in range(spec.brokers))
    return n, queues, hashed
