"""How one description of an endpoint becomes a method of both clients, typed for each.

An endpoint is written as a function returning its Call (what to send, how to decode); read on a
client it becomes a method with the same parameters that runs the call: returning the result on
the sync client (Desktop), an awaitable of it on the async one (AsyncDesktop). The type checker
sees both, so ``await AsyncDesktop(...).tap(1, 2)`` is a dict and ``Desktop(...).tap(1, 2)`` too."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeGuard, TypeVar, overload

from .calls import Call

P = ParamSpec("P")
T = TypeVar("T")
R = TypeVar("R")
# What an asyncio client's method returns: a coroutine of the result (await it, or make it a task).
Pending = Coroutine[object, None, R]


class RunsCalls(Protocol):
    """A blocking client: runs a call and returns its result."""
    def _call(self, call: Call[R], /) -> R: ...


class AwaitsCalls(Protocol):
    """An asyncio client: runs a call as a coroutine."""
    def _call(self, call: Call[R], /) -> Pending[R]: ...


class Endpoint(Generic[P, T]):
    """A descriptor: ``describe(client, *args)`` says the call (reading nothing of the client);
    reading it on a client gives the method."""

    def __init__(self, describe: Callable[Concatenate[Any, P], Call[T]]) -> None:
        self.describe = describe
        self.__doc__ = describe.__doc__
        self.__name__ = describe.__name__

    @overload
    def __get__(self, client: None, owner: type) -> Endpoint[P, T]: ...
    @overload
    def __get__(self, client: AwaitsCalls, owner: type) -> Callable[P, Pending[T]]: ...
    @overload
    def __get__(self, client: RunsCalls, owner: type) -> Callable[P, T]: ...

    def __get__(self, client: RunsCalls | AwaitsCalls | None, owner: type) -> object:
        if client is None:
            return self
        describe = self.describe
        if _awaits(client):
            awaiting = client

            async def coroutine(*args: P.args, **kwargs: P.kwargs) -> T:
                # Described inside the coroutine: an argument the description refuses (an id
                # that is not one) fails where the call is awaited, as every other failure does.
                return await awaiting._call(describe(client, *args, **kwargs))
            chosen: Callable[P, object] = coroutine
        else:
            def method(*args: P.args, **kwargs: P.kwargs) -> object:
                return client._call(describe(client, *args, **kwargs))
            chosen = method
        chosen.__doc__, chosen.__name__ = self.__doc__, self.__name__
        return chosen    # returning T or its coroutine: the overloads above say which


def _awaits(client: RunsCalls | AwaitsCalls) -> TypeGuard[AwaitsCalls]:
    return inspect.iscoroutinefunction(client._call)


def endpoint(describe: Callable[Concatenate[Any, P], Call[T]]) -> Endpoint[P, T]:
    """Marks a function returning a Call as an endpoint of both clients (see Endpoint)."""
    return Endpoint(describe)
