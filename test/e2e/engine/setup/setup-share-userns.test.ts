/**
 * The `[setup] share` suite again with the agents in a user namespace, as an ordinary user's are
 * (HYDRA_CONTAINMENT=user gives root one too): there the init mounts as the namespace's root
 * (`--map-root-user`), with `userxattr`, and starts the agent mapped back to the user's ids.
 */
process.env['HYDRA_CONTAINMENT'] = 'user';
await import('./setup-share.test.js');
