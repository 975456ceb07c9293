// Test doubles of the host and the supervisor for the tests of host-tools.mjs' users (kubectl.mjs, chromium.mjs):
// a machine described by what it has, and a supervisor that records commands instead of running them.

/** A machine where only `executables` exist, with or without root and apt-get. */
export const fakeHost = ({ executables = [], root = false, apt = false } = {}) => ({
  isExecutable: (file) => executables.includes(file),
  isRoot: () => root,
  hasAptGet: () => apt,
});

/** A supervisor that records each command instead of running it and answers with the next exit code. */
export function recordingSupervisor(codes, onRun = () => undefined) {
  const runs = [];
  return {
    runs,
    runForeground: async (command, args) => {
      runs.push([command, ...args].join(' '));
      onRun(args);
      return codes.shift() ?? 0;
    },
  };
}
