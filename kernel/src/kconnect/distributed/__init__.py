"""Distributed mode's group membership: workers as members of the broker's ``connect`` group (KIP-415).

No home-made consensus: the broker's group coordinator decides who is in the group and who leads;
the leader decides who runs what. Four modules, each one job:

* `protocol`: Kafka Connect's wire formats (member metadata, assignments; protocols ``default``
  v0, ``compatible`` v1, ``sessioned`` v2), byte-compatible with Java workers and tools.
* `assignor`: `assign(...)`, the leader's pure function (incremental cooperative, Kafka's rules).
* `membership`: `Membership`, the member's state machine (no I/O), and the events it emits.
* `group_member`: `GroupMember`, the I/O adapter on aiokafka's client (JoinGroup, SyncGroup,
  Heartbeat, LeaveGroup) that runs the other three.

How the distributed herder uses it::

    member = GroupMember(
        bootstrap_servers=worker.bootstrap_servers,
        config=worker.group_config(),            # group.id, heartbeat/session/rebalance timeouts, ...
        url="http://host:8083",                  # this worker's advertised REST URL
        configured=lambda: ConfiguredWork.of(config_store.snapshot(), config_store_offset),
        on_event=herder_handle_membership_event, # async; awaited, one event at a time
    )
    await member.start()                         # returns at once; joining goes on in the background
    member.request_rejoin("config changed")      # after the config topic changed connectors/tasks
    await member.leave()                         # at shutdown (the herder stops its own work)
    await member.wait_closed()                   # raises GroupMembershipError if membership failed

Events (`kconnect.distributed.membership`), delivered in order; the member does not send its next
JoinGroup until the handler has returned, so a handler that stops revoked work before returning
guarantees no connector or task runs on two workers because of a rebalance:

* `RebalanceStarted(reason, revoked)`: a rebalance began; answer 409 to requests needing the
  leader until the next assignment. `revoked` is non-empty only under the eager protocol.
* `AssignmentReceived(generation, member_id, leader_id, leader_url, protocol, config_offset,
  failed, assigned, added, revoked, delay_ms, owners, member_urls)`: stop `revoked`, start
  `added`; `assigned` is the whole work of this worker. `failed`: read the config topic up to
  `config_offset` before returning (the member rejoins). `leader_url` is where to forward writes;
  on the leader, `owners`/`member_urls` tell who runs what.
* `MembershipLost(reason, revoked)`: the group dropped this worker (fenced, session expired, or a
  fatal error such as a session timeout the broker refuses): stop everything in `revoked`.
"""
