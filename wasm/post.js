// wasm/post.js (emcc --post-js, runs inside the module factory).
// Each binding registered as "<name>__raw" returns either its result or
// {__posenc_error__: {name, message}}; here it is exposed as <name>, which throws
// that as a real JS Error (RangeError for bad input), so no exception ever
// unwinds through wasm frames.
addOnPostRun(() => {
  for (const raw of Object.keys(Module).filter((k) => k.endsWith('__raw'))) {
    const fn = Module[raw];
    const name = raw.slice(0, -'__raw'.length);
    Module[name] = {
      [name](...args) {
        const result = fn(...args);
        const error = result !== null && typeof result === 'object' && result.__posenc_error__;
        if (error) throw new (error.name === 'RangeError' ? RangeError : Error)(error.message);
        return result;
      },
    }[name];
    delete Module[raw];
  }
});
