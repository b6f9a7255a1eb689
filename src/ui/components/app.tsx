/**
 * The dashboard app: subscribes to the race (throttled), keeps the view state, turns keys into
 * actions through the pure keymap and reducer, and carries out the reducer's effects through the
 * race handle. Everything it draws comes from buildScreen.
 */
import { useApp, useInput, useStdout } from 'ink';
import {
  useCallback,
  useEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactElement,
} from 'react';
import { assertNever } from '../../core/events.js';
import { errorText } from '../../core/hydra-error.js';
import type { AgentName, RaceHandle } from '../../engine/index.js';
import { keymap } from '../state/index.js';
import { buildScreen, compareRowOrder } from '../layout/index.js';
import { ScreenView } from './screen-view.js';
import { createSnapshotStore, DEFAULT_THROTTLE_MS, type ReceivedSnapshot } from '../state/index.js';
import type { Theme } from '../text/index.js';
import type { PatchState } from '../layout/index.js';
import {
  initialViewState,
  reduce,
  type Action,
  type Effect,
  type Outcome,
  type ViewContext,
  type ViewState,
} from '../state/index.js';

/** How often elapsed times advance between engine updates (spinners also move on every update). */
const CLOCK_TICK_MS = 1000;

/** Commands from outside the component tree (signals caught by runDashboard). */
export interface DashboardControls {
  onCancel(listener: () => void): () => void;
}

export interface AppProps {
  handle: RaceHandle;
  theme: Theme;
  /** Whether merges and quitting keep worktrees (affects what the confirmations say and the merge call). */
  keepWorktrees?: boolean;
  /** False when stdin is not a terminal: no keys, and the dashboard quits once the race settles. */
  interactive?: boolean;
  throttleMs?: number;
  controls?: DashboardControls;
  onExit?: (outcome: Outcome) => void;
  /**
   * The user asked for a shell in an agent's worktree: the app hands over its view state and
   * unmounts, so the caller can give the terminal to the shell and draw the dashboard again after.
   * Without it, `s` says a shell cannot be opened here.
   */
  onShell?: (agent: AgentName, state: ViewState) => void;
  /** The view state to start from (the dashboard drawn again after a shell). */
  initialState?: ViewState;
  /** Said in the header on every screen (`simulated agents` for `hydra demo --here`). */
  marker?: string;
}

/** The race snapshot, throttled, via useSyncExternalStore. */
const useRaceSnapshot = (handle: RaceHandle, throttleMs: number): ReceivedSnapshot => {
  const store = useMemo(() => createSnapshotStore(handle, throttleMs), [handle, throttleMs]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
};

/**
 * The time to draw with: the snapshot's own clock, advanced by the local time since it arrived
 * while agents run (a tick re-renders so elapsed times and spinners move between updates).
 */
const useDisplayNow = (received: ReceivedSnapshot, running: boolean): number => {
  const [, tick] = useReducer((count: number) => count + 1, 0);
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(tick, CLOCK_TICK_MS);
    return () => clearInterval(timer);
  }, [running]);
  if (!running) return received.snapshot.now;
  return received.snapshot.now + Math.max(0, Date.now() - received.receivedAt);
};

/** The terminal size, following resize events. */
const useTerminalSize = (): { columns: number; rows: number } => {
  const { stdout } = useStdout();
  const read = useCallback(() => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 }), [stdout]);
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = (): void => setSize(read());
    stdout.on('resize', onResize);
    onResize();
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, read]);
  return size;
};

export const App = ({
  handle,
  theme,
  keepWorktrees = false,
  interactive = true,
  throttleMs = DEFAULT_THROTTLE_MS,
  controls,
  onExit,
  onShell,
  initialState,
  marker,
}: AppProps): ReactElement => {
  const throttled = useRaceSnapshot(handle, throttleMs);
  const { columns, rows } = useTerminalSize();
  const { exit } = useApp();

  const [state, setState] = useState<ViewState>(initialState ?? initialViewState);
  const stateRef = useRef(state);
  // The final screen is drawn once, just before exit: from the race's latest snapshot, since the
  // throttled one can lag behind the cancel or merge that just ended the race.
  const received =
    state.outcome === null ? throttled : { snapshot: handle.getSnapshot(), receivedAt: throttled.receivedAt };
  const snapshot = received.snapshot;
  // The clock keeps running through the review, until the final screen.
  const now = useDisplayNow(received, state.outcome === null);
  const [patches, setPatches] = useState<Partial<Record<AgentName, PatchState>>>({});
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  const screen = buildScreen({
    snapshot,
    state,
    now,
    columns,
    rows,
    theme,
    patches,
    keepWorktrees,
    ...(marker === undefined ? {} : { marker }),
  });

  const context: ViewContext = {
    agents: snapshot.agents,
    merged: snapshot.merge !== null,
    contentLines: screen.scroll.contentLines,
    pageLines: screen.scroll.pageLines,
    fileStarts: screen.scroll.fileStarts,
    detachedAt: snapshot.baseBranch === null ? snapshot.baseRef : null,
    compareOrder: compareRowOrder(snapshot),
  };
  const contextRef = useRef(context);
  contextRef.current = context;

  const dispatchRef = useRef<(action: Action) => void>(() => undefined);

  const runEffect = useCallback(
    (effect: Effect): void => {
      const dispatch = (action: Action): void => {
        if (mounted.current) dispatchRef.current(action);
      };
      switch (effect.kind) {
        case 'stop':
          handle.stopAgent(effect.agent);
          return;
        case 'load-patch':
          setPatches((current) =>
            current[effect.agent]?.status === 'ready'
              ? current
              : { ...current, [effect.agent]: { status: 'loading' } },
          );
          handle.getPatch(effect.agent).then(
            (text) =>
              mounted.current &&
              setPatches((current) => ({ ...current, [effect.agent]: { status: 'ready', text } })),
            (error: unknown) =>
              mounted.current &&
              setPatches((current) => ({
                ...current,
                [effect.agent]: { status: 'error', message: errorText(error) },
              })),
          );
          return;
        case 'merge': {
          const merge = async (): Promise<void> => {
            for (const agent of effect.stopFirst) handle.stopAgent(agent);
            // Also when none had to be stopped but the race still runs: an agent whose result is in
            // may be in its short result grace, and a race merges once every agent has settled.
            if (
              effect.stopFirst.length > 0 ||
              ['racing', 'checking', 'cross_testing', 'judging'].includes(handle.getSnapshot().phase)
            )
              await handle.settled;
            const result = await handle.merge(
              effect.agent,
              keepWorktrees ? { keepWorktrees: true } : { discardOthers: effect.discardOthers },
            );
            dispatch({ type: 'merge-succeeded', result });
          };
          merge().catch((error: unknown) =>
            dispatch({ type: 'merge-failed', message: `Merge refused: ${errorText(error)}` }),
          );
          return;
        }
        case 'round':
          handle.startRound(effect.request).then(
            () => dispatch({ type: 'round-finished' }),
            (error: unknown) => dispatch({ type: 'round-failed', message: errorText(error) }),
          );
          return;
        case 'shell':
          if (onShell === undefined) {
            dispatch({ type: 'round-failed', message: 'A shell cannot be opened from this dashboard.' });
            return;
          }
          onShell(effect.agent, stateRef.current);
          exit();
          return;
        case 'quit': {
          const quit = async (): Promise<string | undefined> => {
            let problem: string | undefined;
            if (effect.cancel) await handle.cancel().catch((error: unknown) => (problem = errorText(error)));
            await handle.finish().catch((error: unknown) => (problem = errorText(error)));
            return problem;
          };
          void quit().then((problem) =>
            dispatch({
              type: 'quit-finished',
              cancelled: effect.cancel,
              ...(problem === undefined ? {} : { problem }),
            }),
          );
          return;
        }
        default:
          assertNever(effect);
      }
    },
    [handle, keepWorktrees, onShell, exit],
  );

  const dispatch = useCallback(
    (action: Action): void => {
      const transition = reduce(stateRef.current, action, contextRef.current);
      if (transition.state !== stateRef.current) {
        stateRef.current = transition.state;
        setState(transition.state);
      }
      if (transition.effect !== null) runEffect(transition.effect);
    },
    [runEffect],
  );
  dispatchRef.current = dispatch;

  useInput((input, key) => dispatch(keymap(stateRef.current, input, key)), { isActive: interactive });

  useEffect(() => controls?.onCancel(() => dispatch({ type: 'cancel' })), [controls, dispatch]);

  // A notice that lasts while an agent stops ("Stopping Codex...") goes once it has stopped.
  const statuses = snapshot.agents.map((agent) => agent.status).join(',');
  useEffect(() => {
    dispatch({ type: 'agents-changed' });
  }, [statuses, dispatch]);

  // The race can end without us: a race-level failure, or a cancel from outside.
  const phase = snapshot.phase;
  useEffect(() => {
    if (phase === 'failed' || phase === 'cancelled' || phase === 'done') dispatch({ type: 'race-ended' });
  }, [phase, dispatch]);

  // Without a keyboard there is nobody to pick a winner: finish once every agent settled.
  useEffect(() => {
    if (!interactive && phase === 'reviewing') dispatch({ type: 'finish' });
  }, [interactive, phase, dispatch]);

  const outcome = state.outcome;
  useEffect(() => {
    if (outcome === null) return;
    onExit?.(outcome);
    // Let Ink draw the final screen, then unmount.
    const timer = setTimeout(() => exit(), 0);
    return () => clearTimeout(timer);
  }, [outcome, onExit, exit]);

  return <ScreenView screen={screen} theme={theme} />;
};
