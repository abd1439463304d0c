import { useState, type FormEvent } from "react";

/** Asks for a provgraph token; it is kept in sessionStorage only, for this tab. */
export function SignIn({ message, onSignIn }: { message: string | null; onSignIn: (token: string) => void }) {
  const [value, setValue] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) onSignIn(value.trim());
  };
  return (
    <main className="sign-in">
      <h1>provgraph explorer</h1>
      {message && (
        <p className="notice" role="alert" data-testid="sign-in-message">
          {message}
        </p>
      )}
      <form onSubmit={submit} aria-label="Sign in">
        <label htmlFor="token">provgraph token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          required
        />
        <button type="submit">Sign in</button>
        <p className="muted">
          The token stays in this browser tab (sessionStorage) and is sent only as an Authorization header to
          /graphql.
        </p>
      </form>
    </main>
  );
}
