"""The leader's assignment of connectors and tasks to workers: a pure function, Kafka's rules.

`assign` is what the group leader runs once per rebalance (`kconnect.distributed.group_member`
calls it after JoinGroup): in go the members' current work (from their metadata), what the config
snapshot says should run, the state the previous round left, and the time; out come one
`Assignment` per member and the state for the next round. Nothing here does I/O or reads a clock.

Cooperative protocols (v1/v2) follow Kafka's IncrementalCooperativeAssignor (KIP-415):

* work that stays where it runs is never revoked; a member is told only what is *new* for it and
  what it must stop;
* deleted connectors/tasks and copies running on two workers are revoked;
* a worker holding more than its share (``total // workers``, some ``+ 1``) has the excess
  revoked; the next round (the revoked members rejoin) gives it to the members with the least;
* work of a worker that left is *lost*: it is held for ``scheduled.rebalance.max.delay.ms`` (each
  member is told the remaining delay and rejoins after it), so a worker that comes back in time
  gets it again; after the delay it goes to members that joined empty meanwhile, or else is
  spread like new work;
* except that a worker which comes back under a new member id (the broker expelled it, say after a
  broker freeze longer than the session) is known by its REST URL and gets its own lost work back
  in the round it rejoins, where Kafka would hold it for the whole delay (docs/differences.md);
* what the leader remembers lives in the leader (`AssignorState`): when the leader itself leaves,
  the next leader starts with no memory and reassigns the departed leader's work at once, as
  Kafka does;
* two rounds in a row that both revoke for balance back off exponentially (40 ms, 1.6 s, ...,
  at most the max delay), so members that keep bouncing cannot make the group revoke forever.

The eager protocol (v0) uses Kafka's EagerAssignor: everything round-robin over sorted members.

Modules, one job each: `rounds` (`assign`, one round, eager or cooperative), `changes` (what the
members run and what changed since the last round), `loads` (each worker's load, Kafka's balancing
and round-robin), `lost` (a departed worker's work: held, given back, handed out), `state` (the
configured work, and what the leader remembers between rounds, with the configured work's keys
cached until the config changes) and `keys` (connectors and tasks as sets, and ids built in
bulk).
"""

from .rounds import RoundResult, assign
from .state import AssignorState, ConfiguredWork

__all__ = ["AssignorState", "ConfiguredWork", "RoundResult", "assign"]
