"""The herder as a pure reducer: ``apply(state, event) -> (state, effects)``. No I/O, no asyncio.

Desired state (config, target state, task configs) is kept apart from observed state (the
connector's and each task's `Observed`), as in Kafka. Every connector or task instance the reducer
asks for gets a fresh `generation` number; adapter events naming an older generation are stale and
ignored. Status-store effects are not written by the handlers: `apply` derives them by comparing
the observed states before and after the event.

Semantics follow Kafka (WorkerConnector, StandaloneHerder, KIP-745, KIP-875): see the `_ON_TARGET`
table for pause / resume / stop, `restart_plan` for restarts.

Effect order, which the owner task relies on (`kconnect.herder.owner`):

* Store writes come first. A command's config-store writes (`ev.STORE_WRITES`) precede every
  other effect of the same event, so when a write fails the owner can drop the whole event: the
  state stays as it was and nothing outside the stores has been touched.
* Effects run first-in-first-out: the events an effect answers with are folded in after the
  remaining effects of the event that asked for it (`settle` in the reducer's tests does the same).

KAFKA-9228: any change of the connector's config restarts its tasks with the new config, even when
the connector's `task_configs` gives the same task configs (`ConnectorRecord.applied_config`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from enum import Enum
from typing import Any

from kconnect.herder import events as ev
from kconnect.herder.state import Config, ConnectorRecord, HerderState, Owned, TaskRecord, restart_plan
from kconnect.herder.tasks_max import failure_trace, too_many_tasks
from kconnect.model import ConnectorTaskId, RestartRequest, State, TargetState


class _Act(Enum):
    KEEP = "keep"  # leave the connector as it is
    START = "start"  # start a connector instance
    SUSPEND = "suspend"  # stop the instance; observed state becomes the target's


_ANY_STATE = tuple(State)
# Kafka's WorkerConnector.doTransitionTo: a FAILED connector only leaves FAILED for STOPPED.
_ON_TARGET: dict[TargetState, dict[State, _Act]] = {
    TargetState.STARTED: {
        **{s: _Act.START for s in _ANY_STATE},
        State.RUNNING: _Act.KEEP,
        State.RESTARTING: _Act.KEEP,
        State.FAILED: _Act.KEEP,
    },
    TargetState.PAUSED: {**{s: _Act.SUSPEND for s in _ANY_STATE}, State.FAILED: _Act.KEEP},
    TargetState.STOPPED: {s: _Act.SUSPEND for s in _ANY_STATE},
}
_SUSPENDED_STATE = {TargetState.PAUSED: State.PAUSED, TargetState.STOPPED: State.STOPPED}


class _Step:
    """A handler's working copy of one connector plus the effects it has asked for so far."""

    def __init__(self, state: HerderState, record: ConnectorRecord) -> None:
        self.state = state
        self.record = record
        self.effects: list[ev.Effect] = []

    def observe(self, state: State, trace: str | None = None) -> None:
        self.record = replace(self.record, observed=ev.Observed(state, trace, self.state.worker_id))

    def observe_task(
        self, index: int, state: State, trace: str | None = None, generation: int | None = None
    ) -> None:
        task = self.record.tasks[index]
        task = replace(task, observed=ev.Observed(state, trace, self.state.worker_id))
        if generation is not None:
            task = replace(task, generation=generation)
        tasks = list(self.record.tasks)
        tasks[index] = task
        self.record = replace(self.record, tasks=tuple(tasks))

    def next_generation(self) -> int:
        self.record = replace(self.record, generation=self.record.generation + 1)
        return self.record.generation

    def start_connector(self) -> None:
        if not self.state.owns_connector(self.record.name):
            return  # another worker of the group runs it
        generation = self.next_generation()
        self.record = replace(self.record, instance=generation)
        self.effects.append(ev.StartConnector(self.record.name, self.record.config, generation))

    def stop_connector(self) -> None:
        if self.record.instance:
            self.record = replace(self.record, instance=0)
            self.effects.append(ev.StopConnector(self.record.name))

    def start_task(self, index: int, observed: State | None = None) -> None:
        if not self.state.owns_task(ConnectorTaskId(self.record.name, index)):
            return  # another worker of the group runs it
        too_many = too_many_tasks(self.record.name, len(self.record.tasks), self.record.config)
        if too_many is not None:  # KIP-1004: Kafka's worker refuses each task of an oversized set
            self.observe_task(index, State.FAILED, failure_trace(too_many), generation=0)
            return
        generation = self.next_generation()
        task = self.record.tasks[index]
        self.observe_task(index, observed or task.observed.state, task.observed.trace, generation)
        target = TargetState.PAUSED if self.record.target is TargetState.PAUSED else TargetState.STARTED
        self.effects.append(
            ev.StartTask(
                ConnectorTaskId(self.record.name, index), self.record.config, task.config, target, generation
            )
        )

    def stop_task(self, index: int) -> None:
        if self.record.tasks[index].generation:
            self.observe_task(index, State.UNASSIGNED, generation=0)
            self.effects.append(ev.StopTask(ConnectorTaskId(self.record.name, index)))

    def stop_all_tasks(self) -> None:
        for index in range(len(self.record.tasks)):
            self.stop_task(index)

    def replace_tasks(self, configs: Sequence[Config], persist: bool = True) -> None:
        """Write the new task configs first (unless read from the store), then stop the old tasks
        (the caller starts the new ones)."""
        if persist:
            self.effects.append(ev.PersistTaskConfigs(self.record.name, tuple(dict(c) for c in configs)))
        self.stop_all_tasks()
        self.record = replace(
            self.record,
            tasks=_unassigned_tasks(configs, self.state.worker_id),
            applied_config=self.record.config,
        )

    def bring_to_target(self) -> None:
        """Start or suspend the connector instance per `_ON_TARGET` (tasks are the caller's job)."""
        target = self.record.target
        action = _ON_TARGET[target][self.record.observed.state]
        if action is _Act.START:
            self.start_connector()
        elif action is _Act.SUSPEND:
            self.stop_connector()
            self.observe(_SUSPENDED_STATE[target])

    def done(self) -> tuple[HerderState, list[ev.Effect]]:
        return self.state.with_connector(self.record), self.effects


def _unassigned_tasks(configs: Sequence[Config], worker_id: str) -> tuple[TaskRecord, ...]:
    return tuple(TaskRecord(dict(c), ev.Observed(State.UNASSIGNED, None, worker_id)) for c in configs)


def _new_record(state: HerderState, name: str, config: Config, target: TargetState) -> ConnectorRecord:
    return ConnectorRecord(name, dict(config), target, ev.Observed(State.UNASSIGNED, None, state.worker_id))


# --- handlers: one per event type ----------------------------------------------------------------

_Result = tuple[HerderState, list[ev.Effect]]


def _load_step(state: HerderState, e: ev.ConnectorLoaded) -> _Step:
    step = _Step(state, _new_record(state, e.name, e.config, e.target))
    tasks = _unassigned_tasks(e.task_configs, state.worker_id)
    step.record = replace(step.record, tasks=tasks, applied_config=step.record.config)
    step.bring_to_target()
    if e.target is not TargetState.STOPPED:
        for index in range(len(step.record.tasks)):
            step.start_task(index)
    return step


def _loaded(state: HerderState, e: ev.ConnectorsLoaded) -> _Result:
    # A load reads only the worker's id and ownership from the state, never another connector,
    # so every load can start from the same state and the map is built once.
    records: dict[str, ConnectorRecord] = {}
    effects: list[ev.Effect] = []
    for load in e.connectors:
        step = _load_step(state, load)
        records[load.name] = step.record
        effects.extend(step.effects)
    return replace(state, connectors={**state.connectors, **records}), effects


def _configured(state: HerderState, e: ev.ConnectorConfigured) -> _Result:
    existing = state.connectors.get(e.name)
    if existing is None:
        target = e.initial_target or TargetState.STARTED
        step = _Step(state, _new_record(state, e.name, e.config, target))
        step.effects.append(ev.PersistConfig(e.name, step.record.config, target))
    else:
        step = _Step(state, replace(existing, config=dict(e.config)))
        step.effects.append(ev.PersistConfig(e.name, step.record.config, None))
        step.stop_connector()
        step.observe(State.UNASSIGNED)
    step.bring_to_target()
    return step.done()


def _removed(state: HerderState, e: ev.ConnectorRemoved) -> _Result:
    record = state.connectors.get(e.name)
    if record is None:
        return state, []
    step = _Step(state, record)
    step.effects.append(ev.RemoveConfig(e.name))
    step.stop_all_tasks()
    step.stop_connector()
    return state.without(e.name), step.effects


def _target_set(state: HerderState, e: ev.TargetStateSet) -> _Result:
    return _new_target(state, e.name, e.target, persist=True)


def _target_read(state: HerderState, e: ev.TargetStateRead) -> _Result:
    return _new_target(state, e.name, e.target, persist=False)


def _new_target(state: HerderState, name: str, target: TargetState, persist: bool) -> _Result:
    record = state.connectors.get(name)
    if record is None or record.target is target:
        return state, []
    step = _Step(state, replace(record, target=target))
    if target is TargetState.STOPPED:
        # Kafka's order of writes: the task configs are removed before the target state is written.
        step.replace_tasks([], persist)
        if persist:
            step.effects.insert(1, ev.PersistTargetState(name, target))
    else:
        if persist:
            step.effects.append(ev.PersistTargetState(name, target))
        for index, task in enumerate(step.record.tasks):
            if task.generation and task.observed.state is not State.FAILED:
                step.effects.append(ev.SetTaskTargetState(ConnectorTaskId(name, index), target))
    step.bring_to_target()
    return step.done()


# --- distributed mode: what every worker reads from the config topic, and its assignment --------


def _config_read(state: HerderState, e: ev.ConnectorConfigRead) -> _Result:
    existing = state.connectors.get(e.name)
    if existing is None:
        record = replace(_new_record(state, e.name, e.config, e.target), applied_config=dict(e.config))
        step = _Step(state, record)
    elif dict(existing.config) == dict(e.config):
        return state, []  # this worker's own write read back, or a config put unchanged
    else:
        step = _Step(state, replace(existing, config=dict(e.config)))
        step.stop_connector()
        step.observe(State.UNASSIGNED)
    step.bring_to_target()
    return step.done()


def _config_deleted(state: HerderState, e: ev.ConnectorConfigDeleted) -> _Result:
    record = state.connectors.get(e.name)
    if record is None:
        return state, []
    step = _Step(state, record)
    step.stop_all_tasks()
    step.stop_connector()
    return state.without(e.name), step.effects


def _tasks_read(state: HerderState, e: ev.TaskConfigsRead) -> _Result:
    record = state.connectors.get(e.name)
    if record is None:
        return state, []
    same = [dict(c) for c in e.configs] == [dict(c) for c in record.task_configs]
    if same and dict(record.applied_config or {}) == dict(record.config):
        return state, []  # the connector's owner wrote them from this state: nothing to restart
    step = _Step(state, record)
    step.replace_tasks(e.configs, persist=False)
    if record.target is not TargetState.STOPPED:
        for index in range(len(step.record.tasks)):
            step.start_task(index)
    return step.done()


def _logger_level_read(state: HerderState, e: ev.LoggerLevelRead) -> _Result:
    """KIP-976: every worker applies a cluster-wide level it reads; the connectors are not concerned."""
    return state, [ev.SetLoggerLevel(e.namespace, e.level)]


def _assignment_changed(state: HerderState, e: ev.AssignmentChanged) -> _Result:
    """Stop every revoked instance first, then start every added one (Kafka's order)."""
    owned = Owned(e.connectors, e.tasks)

    def revoke(step: _Step) -> None:
        for index, task_id in enumerate(step.record.task_ids()):
            if state.owns_task(task_id) and task_id not in owned.tasks:
                step.stop_task(index)
        if state.owns_connector(step.record.name) and step.record.name not in owned.connectors:
            step.stop_connector()
            step.observe(State.UNASSIGNED)

    before, revoked = _each_connector(state, revoke)
    after = replace(before, owned=owned)

    def add(step: _Step) -> None:
        record = step.record
        if not before.owns_connector(record.name) and after.owns_connector(record.name):
            step.observe(State.UNASSIGNED)  # what this worker saw of another worker's instance is gone
            step.bring_to_target()
        if record.target is not TargetState.STOPPED:
            for index, task_id in enumerate(record.task_ids()):
                if after.owns_task(task_id) and not step.record.tasks[index].generation:
                    step.start_task(index, State.UNASSIGNED)

    state, added = _each_connector(after, add)
    return state, [*revoked, *added]


def _each_connector(state: HerderState, act: Callable[[_Step], None]) -> _Result:
    """`act` on a step of every connector, in order; the state rebuilt once with the records that
    changed (a rebalance at 10,000 connectors would copy the whole map once per connector)."""
    changed: dict[str, ConnectorRecord] = {}
    effects: list[ev.Effect] = []
    for record in state.connectors.values():
        step = _Step(state, record)
        act(step)
        if step.record is not record:
            changed[record.name] = step.record
        effects.extend(step.effects)
    if changed:
        state = replace(state, connectors={**state.connectors, **changed})
    return state, effects


def _restart(state: HerderState, e: RestartRequest) -> _Result:
    record = state.connectors.get(e.connector)
    if record is None:
        return state, []
    plan = restart_plan(record, e.include_tasks, e.only_failed)
    step = _Step(state, record)
    if plan.connector:
        step.stop_connector()
    for index in plan.tasks:
        step.stop_task(index)
    if plan.connector:
        # A restarted connector starts only if its target is STARTED; otherwise it shows its target.
        if record.target is TargetState.STARTED:
            step.observe(State.RESTARTING)
            step.start_connector()
        else:
            step.observe(_SUSPENDED_STATE[record.target])
    for index in plan.tasks:
        step.start_task(index, State.RESTARTING)
    return step.done()


def _task_restart(state: HerderState, e: ev.TaskRestartRequested) -> _Result:
    record = state.connectors.get(e.id.connector)
    if record is None or not 0 <= e.id.task < len(record.tasks):
        return state, []
    step = _Step(state, record)
    step.stop_task(e.id.task)
    step.start_task(e.id.task, State.RESTARTING)
    return step.done()


def _auto_restart_due(state: HerderState, e: ev.AutoRestartDue) -> _Result:
    """An automatic restart is a manual one (`_restart` of the connector alone, `_task_restart`) of an
    instance this worker still runs and that is still FAILED (unless `only_failed` is False)."""
    record = state.connectors.get(e.connector)
    if record is None:
        return state, []
    if e.task is None:
        failed = record.observed.state is State.FAILED
        if not state.owns_connector(e.connector) or (e.only_failed and not failed):
            return state, []
        return _restart(state, RestartRequest(e.connector))
    task = ConnectorTaskId(e.connector, e.task)
    if not 0 <= e.task < len(record.tasks) or not state.owns_task(task):
        return state, []
    if e.only_failed and record.tasks[e.task].observed.state is not State.FAILED:
        return state, []
    return _task_restart(state, ev.TaskRestartRequested(task))


def _reconfigure(state: HerderState, e: ev.ReconfigurationRequested) -> _Result:
    record = state.connectors.get(e.name)
    if record is None or not record.instance or record.target is not TargetState.STARTED:
        return state, []
    if record.observed.state is not State.RUNNING:
        return state, []
    return state, [ev.GenerateTaskConfigs(e.name, record.instance)]


def _shutdown(state: HerderState, _e: ev.ShutdownRequested) -> _Result:
    effects: list[ev.Effect] = []
    for record in state.connectors.values():
        step = _Step(state, record)
        step.stop_all_tasks()
        if record.instance:
            step.stop_connector()
            step.observe(State.UNASSIGNED)
        state, done = step.done()
        effects.extend(done)
    return state, effects


def _current(state: HerderState, name: str, generation: int) -> ConnectorRecord | None:
    record = state.connectors.get(name)
    return record if record is not None and generation and record.instance == generation else None


def _connector_started(state: HerderState, e: ev.ConnectorStarted) -> _Result:
    record = _current(state, e.name, e.generation)
    if record is None:
        return state, []
    step = _Step(state, record)
    step.observe(State.RUNNING)
    if record.target is TargetState.STARTED:
        step.effects.append(ev.GenerateTaskConfigs(e.name, e.generation))
    return step.done()


def _connector_failed(state: HerderState, e: ev.ConnectorFailed) -> _Result:
    record = _current(state, e.name, e.generation)
    if record is None:
        return state, []
    step = _Step(state, record)
    step.observe(State.FAILED, e.trace)
    return step.done()


def _connector_stopped(state: HerderState, e: ev.ConnectorStopped) -> _Result:
    record = _current(state, e.name, e.generation)
    if record is None:
        return state, []
    return state.with_connector(replace(record, instance=0)), []


def _task_configs_generated(state: HerderState, e: ev.TaskConfigsGenerated) -> _Result:
    record = _current(state, e.name, e.generation)
    if record is None or record.target is not TargetState.STARTED:
        return state, []
    step = _Step(state, replace(record, configs_from=e.generation))
    changed = [dict(c) for c in e.configs] != [dict(c) for c in record.task_configs]
    # KAFKA-9228: converters, transforms, client overrides... live in the connector config only.
    reconfigured = bool(record.tasks) and dict(record.applied_config or {}) != dict(record.config)
    if changed or reconfigured:
        step.replace_tasks(e.configs)
    for index, task in enumerate(step.record.tasks):
        if not task.generation:
            step.start_task(index)
    return step.done()


_TaskEvent = ev.TaskRunning | ev.TaskPaused | ev.TaskFailed | ev.TaskStopped | ev.TaskUnassigned


def _task_event(new_state: State) -> Callable[[HerderState, Any], _Result]:
    def handle(state: HerderState, e: _TaskEvent) -> _Result:
        record = state.connectors.get(e.id.connector)
        if record is None or not 0 <= e.id.task < len(record.tasks):
            return state, []
        if not e.generation or record.tasks[e.id.task].generation != e.generation:
            return state, []
        step = _Step(state, record)
        trace = e.trace if isinstance(e, ev.TaskFailed) else None
        if isinstance(e, ev.TaskUnassigned):
            trace = e.reason  # still the current instance: it keeps its generation
        if isinstance(e, ev.TaskStopped):
            # The herder forgets a task's generation when it asks it to stop, so a current task that
            # reports a stop ended on its own: status must not leave it UNASSIGNED without a reason.
            step.observe_task(e.id.task, State.FAILED, _unexpected_stop(e.id))
        else:
            step.observe_task(e.id.task, new_state, trace)
        return step.done()

    return handle


def _task_stall(state: HerderState, e: ev.TaskStalled | ev.TaskStallEnded) -> _Result:
    """A RUNNING task's trace says why it is stalled, and says nothing once it moves again (kconnect's
    extension: Kafka's clients see a RUNNING task with a trace). Any other state keeps its own trace."""
    record = state.connectors.get(e.id.connector)
    if record is None or not 0 <= e.id.task < len(record.tasks):
        return state, []
    task = record.tasks[e.id.task]
    if not e.generation or task.generation != e.generation or task.observed.state is not State.RUNNING:
        return state, []
    step = _Step(state, record)
    step.observe_task(e.id.task, State.RUNNING, e.trace if isinstance(e, ev.TaskStalled) else None)
    return step.done()


def _unexpected_stop(task: ConnectorTaskId) -> str:
    return (
        f"Task {task} stopped although the worker did not ask it to stop; nothing runs it any more. "
        "Restart the task to run it again."
    )


_HANDLERS: dict[type[Any], Callable[[HerderState, Any], _Result]] = {
    ev.ConnectorsLoaded: _loaded,
    ev.ConnectorConfigured: _configured,
    ev.ConnectorRemoved: _removed,
    ev.TargetStateSet: _target_set,
    RestartRequest: _restart,
    ev.TaskRestartRequested: _task_restart,
    ev.AutoRestartDue: _auto_restart_due,
    ev.ReconfigurationRequested: _reconfigure,
    ev.ShutdownRequested: _shutdown,
    ev.ConnectorConfigRead: _config_read,
    ev.ConnectorConfigDeleted: _config_deleted,
    ev.TargetStateRead: _target_read,
    ev.TaskConfigsRead: _tasks_read,
    ev.LoggerLevelRead: _logger_level_read,
    ev.AssignmentChanged: _assignment_changed,
    ev.ConnectorStarted: _connector_started,
    ev.ConnectorFailed: _connector_failed,
    ev.ConnectorStopped: _connector_stopped,
    ev.TaskConfigsGenerated: _task_configs_generated,
    ev.TaskRunning: _task_event(State.RUNNING),
    ev.TaskPaused: _task_event(State.PAUSED),
    ev.TaskFailed: _task_event(State.FAILED),
    ev.TaskStopped: _task_event(State.FAILED),  # only ever current when it stopped unasked
    ev.TaskUnassigned: _task_event(State.UNASSIGNED),
    ev.TaskStalled: _task_stall,
    ev.TaskStallEnded: _task_stall,
}


def apply(state: HerderState, event: ev.Event) -> tuple[HerderState, list[ev.Effect]]:
    """Fold one event into the state; return the new state and the effects to carry out, in order.

    Called by the herder's owner task for every event, and directly by unit tests.
    """
    new_state, effects = _HANDLERS[type(event)](state, event)
    return new_state, [*effects, *_status_effects(state, new_state)]


def _status_effects(old: HerderState, new: HerderState) -> list[ev.Effect]:
    """Status writes for what changed; a distributed worker writes only what it owns (in `new`;
    a deletion: what it owned in `old`), so each status has one writer."""
    effects: list[ev.Effect] = []
    names = old.connectors.keys() | new.connectors.keys()
    if old.owned == new.owned:
        # Ownership unchanged: only a connector whose record changed can need a status write.
        names = {name for name in names if old.connectors.get(name) is not new.connectors.get(name)}
    for name in sorted(names):
        before, after = old.connectors.get(name), new.connectors.get(name)
        if after is None:
            if old.owns_connector(name):
                effects.append(ev.RemoveStatus(name))
            continue
        # A worker given a PAUSED or STOPPED connector saw it so before it owned it, and its instance
        # will report nothing new: write the status now (the topic names the old owner, or no one).
        suspended = not old.owns_connector(name) and after.target is not TargetState.STARTED
        if (before is None or before.observed != after.observed or suspended) and new.owns_connector(name):
            effects.append(ev.PutConnectorStatus(name, after.observed))
        before_tasks = before.tasks if before is not None else ()
        for index, task in enumerate(after.tasks):
            task_id = ConnectorTaskId(name, index)
            changed = index >= len(before_tasks) or before_tasks[index].observed != task.observed
            if changed and new.owns_task(task_id):
                effects.append(ev.PutTaskStatus(task_id, task.observed))
        for index in range(len(after.tasks), len(before_tasks)):
            if old.owns_task(ConnectorTaskId(name, index)):
                effects.append(ev.RemoveTaskStatus(ConnectorTaskId(name, index)))
    return effects
