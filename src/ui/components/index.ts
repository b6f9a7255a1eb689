/** Ink components: the app, the screen view, and runDashboard, which mounts them. */
export { runDashboard } from './dashboard.js';
export type { DashboardOptions, DashboardResult } from './dashboard.js';
