/** The dashboard's entry: the only module the CLI imports from src/ui. */
export { runDashboard } from './components/index.js';
