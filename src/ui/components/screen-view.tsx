/**
 * Draws a laid-out Screen with Ink. No logic beyond mapping lines and boxes to elements: every
 * line is already cut to its width, and every box has a fixed height.
 */
import { Box, Text, type BoxProps } from 'ink';
import { Fragment, type ReactElement } from 'react';
import { assertNever } from '../../core/events.js';
import type { Line } from '../layout/index.js';
import type { Body, PaneBox, Screen } from '../layout/index.js';
import type { Theme } from '../text/index.js';

/** A line with nothing to show, drawn as one space so it keeps its row. */
const isBlank = (line: Line): boolean => line.length === 0 || line.every((segment) => segment.text === '');

/** One segment in its tone, bold or inverse (a plain function: no component per segment). */
const styledSegment = (segment: Line[number], theme: Theme, key: number): ReactElement => (
  <Text
    key={key}
    color={segment.tone ? theme.tone(segment.tone) : undefined}
    bold={segment.bold === true}
    inverse={segment.inverse === true}
  >
    {segment.text}
  </Text>
);

const LineView = ({ line, theme }: { line: Line; theme: Theme }): ReactElement => {
  if (isBlank(line)) return <Text> </Text>;
  return (
    <Text wrap="truncate-end">{line.map((segment, index) => styledSegment(segment, theme, index))}</Text>
  );
};

/**
 * A block of lines as one Text element: one layout node instead of one per line, which keeps
 * Ink's per-frame work small. The lines are already cut to width, so nothing wraps.
 */
const Lines = ({ lines, theme }: { lines: Line[]; theme: Theme }): ReactElement | null => {
  if (lines.length === 0) return null;
  return (
    <Text>
      {lines.map((line, lineIndex) => (
        <Fragment key={lineIndex}>
          {lineIndex > 0 ? '\n' : null}
          {isBlank(line) ? ' ' : null}
          {line.map((segment, index) =>
            segment.tone || segment.bold === true || segment.inverse === true
              ? styledSegment(segment, theme, index)
              : segment.text,
          )}
        </Fragment>
      ))}
    </Text>
  );
};

/** A pane's box: its size, its lines, and a border that stands out when it has the focus. */
const paneFrame = (pane: PaneBox, theme: Theme): BoxProps => ({
  width: pane.width,
  height: pane.height,
  flexDirection: 'column',
  overflow: 'hidden',
  borderStyle: pane.focused ? theme.focusBorder : theme.border,
  borderColor: theme.tone(pane.focused ? 'accent' : 'muted'),
});

const SidePane = ({ pane, theme }: { pane: PaneBox; theme: Theme }): ReactElement => (
  <Box {...paneFrame(pane, theme)} paddingX={1}>
    <Lines lines={pane.lines} theme={theme} />
  </Box>
);

/** Stacked panes are divided by a rule above each, no side or bottom border. */
const StackedPane = ({ pane, theme }: { pane: PaneBox; theme: Theme }): ReactElement => (
  <Box {...paneFrame(pane, theme)} borderBottom={false} borderLeft={false} borderRight={false}>
    <Lines lines={pane.lines} theme={theme} />
  </Box>
);

const BodyView = ({ body, theme }: { body: Body; theme: Theme }): ReactElement => {
  switch (body.kind) {
    case 'panes':
      if (body.mode === 'grid') {
        const rows = Array.from({ length: Math.ceil(body.panes.length / body.perRow) }, (_, row) =>
          body.panes.slice(row * body.perRow, (row + 1) * body.perRow),
        );
        return (
          <Box flexDirection="column">
            {rows.map((row, index) => (
              <Box key={index} flexDirection="row">
                {row.map((pane) => (
                  <SidePane key={`${pane.agent}-${String(pane.focused)}`} pane={pane} theme={theme} />
                ))}
              </Box>
            ))}
          </Box>
        );
      }
      return body.mode === 'side-by-side' ? (
        <Box flexDirection="row">
          {body.panes.map((pane) => (
            // Keyed on focus too: Ink does not re-apply per-edge borders when only borderStyle changes.
            <SidePane key={`${pane.agent}-${String(pane.focused)}`} pane={pane} theme={theme} />
          ))}
        </Box>
      ) : (
        <Box flexDirection="column">
          {body.panes.map((pane) => (
            <StackedPane key={`${pane.agent}-${String(pane.focused)}`} pane={pane} theme={theme} />
          ))}
        </Box>
      );
    case 'scroll':
      return (
        <Box flexDirection="column" height={body.height} overflow="hidden">
          <LineView line={body.title} theme={theme} />
          <Lines lines={body.lines} theme={theme} />
        </Box>
      );
    case 'final':
      return (
        <Box flexDirection="column">
          <Lines lines={body.lines} theme={theme} />
        </Box>
      );
    default:
      return assertNever(body);
  }
};

export const ScreenView = ({ screen, theme }: { screen: Screen; theme: Theme }): ReactElement => {
  const live = screen.body.kind !== 'final';
  return (
    <Box
      flexDirection="column"
      width={screen.columns}
      height={live ? screen.height : undefined}
      overflow="hidden"
    >
      <Lines lines={screen.header} theme={theme} />
      <BodyView body={screen.body} theme={theme} />
      {live ? <Box flexGrow={1} /> : null}
      <Lines lines={screen.notices} theme={theme} />
      {screen.dialog === null ? null : (
        <Box
          flexDirection="column"
          borderStyle={theme.border}
          borderColor={theme.tone('warn')}
          paddingX={1}
          width={screen.columns}
        >
          <Lines lines={screen.dialog} theme={theme} />
        </Box>
      )}
      {screen.footer === null ? null : <LineView line={screen.footer} theme={theme} />}
    </Box>
  );
};
