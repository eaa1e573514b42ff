"""`RoomError`: what a room refuses, with a short code for the page and a message in English and Chinese."""

from __future__ import annotations

from ..text import Text


class RoomError(Exception):
    """A room refused a call. `.why` is a short code a page may branch on ("no_room", "full",
    "not_trainer", "too_large", "closed", "bad_choice", "not_joined", "too_many_rooms", "invalid");
    `.message` is what to tell the person."""

    def __init__(self, why: str, message: Text) -> None:
        super().__init__(message.en)
        self.why = why
        self.message = message


def no_room() -> RoomError:
    return RoomError(
        "no_room",
        Text("This room does not exist or has expired.", "该房间不存在或已过期。"),
    )


def not_trainer() -> RoomError:
    return RoomError(
        "not_trainer",
        Text("Only the trainer who opened this room can do that.", "只有开设此房间的讲师可以这样做。"),
    )


def too_many_rooms(limit: int) -> RoomError:
    return RoomError(
        "too_many_rooms",
        Text(
            f"This server already holds {limit} rooms, its limit: close one or try again later.",
            f"本服务器已开设 {limit} 个房间（上限）：请先关闭一个，或稍后再试。",
        ),
    )


#: what may be full, and how each language names it with its limit
_FULL = {
    "participants": ("participants", "位参与者"),
    "submissions": ("submissions", "份提交"),
    "polls": ("polls", "个投票"),
    "events": ("events in this run", "个本次运行的事件"),
    "votes": ("votes in this poll", "张本投票的选票"),
    "bytes": ("bytes of events in this run", "字节的本次运行事件"),
}


def full(what: str, limit: int) -> RoomError:
    en, zh = _FULL[what]
    return RoomError(
        "full",
        Text(f"This room is full: it holds at most {limit:,} {en}.", f"房间已满：最多容纳 {limit:,} {zh}。"),
    )


def submissions_each(limit: int) -> RoomError:
    return RoomError(
        "full",
        Text(
            f"You have sent this room {limit} submissions, as many as one participant may.",
            f"你已向本房间提交 {limit} 份，已达每位参与者的上限。",
        ),
    )


def too_large(size: int, limit: int) -> RoomError:
    return RoomError(
        "too_large",
        Text(
            f"The submission is too large: {size:,} bytes, at most {limit:,}.",
            f"提交内容过大：{size:,} 字节，最多 {limit:,} 字节。",
        ),
    )


def closed() -> RoomError:
    return RoomError(
        "closed",
        Text("This poll is not open for votes.", "此投票未开放。"),
    )


def bad_choice() -> RoomError:
    return RoomError(
        "bad_choice",
        Text("That is not one of this poll's choices.", "这不是此投票的选项。"),
    )


def not_joined() -> RoomError:
    return RoomError(
        "not_joined",
        Text("Join the room first.", "请先加入房间。"),
    )


def invalid(en: str, zh: str) -> RoomError:
    """Input that cannot be what it claims to be (a participant id, a payload, a run)."""
    return RoomError("invalid", Text(en, zh))
