"""`RedisStore`: rooms in Redis, so several app servers behind one address share them.

redis-py is an optional extra (requirements-redis.txt), imported when a RedisStore is made. A room's
keys share one prefix with its code in braces (one Redis Cluster slot), a set lists them, and each
write gives its key the room's remaining TTL, so the whole room expires at once. Every write that
checks a cap or the room's existence is one Lua script: atomic, whichever server calls it. A sorted
set of the codes, scored by when each expires (Redis' own clock), counts the rooms held.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ..text import Text
from .store import RoomStoreError

T = TypeVar("T")
#: items one script call appends: Lua's unpack() takes some 8,000 values at most
_BATCH = 1000

# KEYS[1] index, KEYS[2] meta, KEYS[3] the room's key set; ARGV: code, ttl ms, max rooms (-1: none), field, value…
_CREATE = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local cap = tonumber(ARGV[3])
if cap >= 0 and redis.call('ZCARD', KEYS[1]) >= cap then return 0 end
local ttl = tonumber(ARGV[2])
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('ZADD', KEYS[1], ms + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
"""

# KEYS[1] index, KEYS[2] meta, KEYS[3] key set; ARGV: code, ttl ms
_TOUCH = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('PEXPIRE', KEYS[2], ttl)
for _, key in ipairs(redis.call('SMEMBERS', KEYS[3])) do redis.call('PEXPIRE', key, ttl) end
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('ZADD', KEYS[1], ms + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
"""

# KEYS[1] index, KEYS[2] meta, KEYS[3] key set; ARGV: code
_DELETE = """
for _, key in ipairs(redis.call('SMEMBERS', KEYS[3])) do redis.call('DEL', key) end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
"""

# Gives KEYS[3] (a stream or table) and the key set the meta's remaining TTL; a shared prelude.
_ADOPT = """
local function adopt(ttl)
  redis.call('SADD', KEYS[2], KEYS[3])
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
"""

# KEYS[1] meta, KEYS[2] key set, KEYS[3] stream; ARGV: cap, item…  -> {the stream's length before, how many
# items it took} ({-1, 0}: the room is gone); the items past the cap are not appended
_APPEND = (
    _ADOPT
    + """
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return {-1, 0} end
local start = redis.call('LLEN', KEYS[3])
local n = math.min(math.max(tonumber(ARGV[1]) - start, 0), #ARGV - 1)
if n > 0 then
  redis.call('RPUSH', KEYS[3], unpack(ARGV, 2, n + 1))
  adopt(ttl)
end
return {start, n}
"""
)

# KEYS[1] meta, KEYS[2] key set, KEYS[3] table; ARGV: cap, field, value -> 1 set, 0 refused
_PUT = (
    _ADOPT
    + """
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 0 and redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
adopt(ttl)
return 1
"""
)

# KEYS[1] meta; ARGV: field, value -> 1 set, 0 the room is gone
_SET_META = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


def _missing_extra() -> RoomStoreError:
    return RoomStoreError(
        Text(
            "A Redis room store needs redis-py: pip install -r requirements-redis.txt",
            "Redis 房间存储需要 redis-py：pip install -r requirements-redis.txt",
        )
    )


class RedisStore:
    """A RoomStore in Redis at `url` (redis://host:port/db, rediss://…, unix://…)."""

    def __init__(self, url: str, *, prefix: str = "agent-playground:", client: Any = None) -> None:
        try:
            import redis
        except ImportError:
            raise _missing_extra() from None
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError,)
        if client is None:
            try:
                client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5)
            except ValueError as exc:
                raise RoomStoreError(
                    Text(
                        f"The room store's address is not a Redis URL ({exc}): use redis://host:port/db.",
                        f"房间存储地址不是 Redis URL（{exc}）：请使用 redis://host:port/db。",
                    )
                ) from None
        self._redis = client
        self._prefix = prefix
        self._index = f"{prefix}rooms"
        self._scripts = {
            name: client.register_script(source)
            for name, source in (
                ("create", _CREATE),
                ("touch", _TOUCH),
                ("delete", _DELETE),
                ("append", _APPEND),
                ("put", _PUT),
                ("set_meta", _SET_META),
            )
        }
        self._call(client.ping)

    def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one Redis command; a backend that fails is a RoomStoreError, said in both languages."""
        try:
            return fn(*args, **kwargs)
        except self._errors as exc:
            raise RoomStoreError(
                Text(
                    f"The room store (Redis) did not answer: {type(exc).__name__}: {exc}",
                    f"房间存储（Redis）无响应：{type(exc).__name__}: {exc}",
                )
            ) from None

    def _key(self, code: str, part: str) -> str:
        # the braces make every key of a room hash to one Redis Cluster slot, so its scripts may touch them all
        return f"{self._prefix}room:{{{code}}}:{part}"

    def _room_keys(self, code: str) -> list[str]:
        return [self._index, self._key(code, "meta"), self._key(code, "keys")]

    def _own(self, code: str, part: str) -> list[str]:
        return [self._key(code, "meta"), self._key(code, "keys"), self._key(code, part)]

    def _run(self, name: str, keys: list[str], args: Sequence[Any]) -> int:
        return int(self._call(self._scripts[name], keys=keys, args=list(args)))

    def create(self, code: str, meta: Mapping[str, str], ttl_s: float, *, max_rooms: int | None = None) -> bool:
        fields = [x for pair in meta.items() for x in pair] or ["created", ""]
        cap = -1 if max_rooms is None else max_rooms
        return self._run("create", self._room_keys(code), [code, _ms(ttl_s), cap, *fields]) == 1

    def meta(self, code: str) -> dict[str, str] | None:
        found = self._call(self._redis.hgetall, self._key(code, "meta"))
        return dict(found) if found else None

    def set_meta(self, code: str, field: str, value: str) -> bool:
        return self._run("set_meta", [self._key(code, "meta")], [field, value]) == 1

    def touch(self, code: str, ttl_s: float) -> None:
        self._run("touch", self._room_keys(code), [code, _ms(ttl_s)])

    def delete(self, code: str) -> None:
        self._run("delete", self._room_keys(code), [code])

    def count_rooms(self) -> int:
        # ZCOUNT from now: expired entries are not counted (the next create removes them)
        seconds, micros = self._call(self._redis.time)
        return int(self._call(self._redis.zcount, self._index, f"({seconds * 1000 + micros // 1000}", "+inf"))

    def _append(self, code: str, stream: str, items: Sequence[str], cap: int) -> tuple[int, int] | None:
        """(the stream's length before, how many of `items` it took up to `cap`), or None: the room is gone."""
        start, taken = self._call(self._scripts["append"], keys=self._own(code, f"s:{stream}"), args=[cap, *items])
        return None if int(start) < 0 else (int(start), int(taken))

    def push(self, code: str, stream: str, item: str, cap: int) -> int | None:
        appended = self._append(code, stream, [item], cap)
        return appended[0] if appended is not None and appended[1] == 1 else None

    def extend(self, code: str, stream: str, items: Sequence[str], cap: int) -> int | None:
        if not items:
            return 0 if self.meta(code) is not None else None
        total = 0
        for at in range(0, len(items), _BATCH):
            batch = items[at : at + _BATCH]
            appended = self._append(code, stream, batch, cap)
            if appended is None:
                return None if total == 0 else total
            total += appended[1]
            if appended[1] < len(batch):
                break
        return total

    def read(self, code: str, stream: str, start: int = 0, limit: int | None = None) -> list[str]:
        start = max(0, start)
        end = -1 if limit is None else start + max(0, limit) - 1
        if end < -1 or (limit is not None and limit <= 0):
            return []
        return list(self._call(self._redis.lrange, self._key(code, f"s:{stream}"), start, end))

    def drop(self, code: str, stream: str) -> None:
        self._call(self._redis.delete, self._key(code, f"s:{stream}"))

    def put(self, code: str, table: str, field: str, value: str, cap: int) -> bool:
        return self._run("put", self._own(code, f"t:{table}"), [cap, field, value]) == 1

    def get(self, code: str, table: str, field: str) -> str | None:
        found = self._call(self._redis.hget, self._key(code, f"t:{table}"), field)
        return found if isinstance(found, str) else None

    def table(self, code: str, table: str) -> dict[str, str]:
        return dict(self._call(self._redis.hgetall, self._key(code, f"t:{table}")))

    def count(self, code: str, table: str) -> int:
        return int(self._call(self._redis.hlen, self._key(code, f"t:{table}")))

    def ttl_ms(self, code: str) -> dict[str, int]:
        """Every key of the room and its remaining TTL in ms (what a test checks: nothing outlives it)."""
        keys = [
            self._key(code, "meta"),
            self._key(code, "keys"),
            *self._call(self._redis.smembers, self._key(code, "keys")),
        ]
        return {key: int(self._call(self._redis.pttl, key)) for key in keys}

    def close(self) -> None:
        self._redis.close()


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))
