// wasm/post.js (emcc --post-js, runs inside the module factory).
// Each binding registered as "<name>__raw" returns either its result or
// {__posenc_error__: {name, message}}; here it is exposed as <name>, which throws
// that as a real JS Error (RangeError for bad input), so no exception ever
// unwinds through wasm frames. Missing trailing arguments are passed as
// undefined (the binding names the one it needed, or takes its default).
addOnPostRun(() => {
  for (const raw of Object.keys(Module).filter((k) => k.endsWith('__raw'))) {
    const fn = Module[raw];
    const name = raw.slice(0, -'__raw'.length);
    const arity = fn.argCount;
    Module[name] = {
      [name](...args) {
        if (args.length > arity) throw new TypeError(`${name} takes ${arity} arguments, got ${args.length}`);
        while (args.length < arity) args.push(undefined);
        const result = fn(...args);
        const error = result !== null && typeof result === 'object' && result.__posenc_error__;
        if (error) throw new (error.name === 'RangeError' ? RangeError : Error)(error.message);
        return result;
      },
    }[name];
    delete Module[raw];
  }
});
