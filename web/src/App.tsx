import { useEffect, useState } from "react";
import { clearToken, getToken, setToken } from "./api/auth";
import { onAuthLost } from "./api/client";
import { forgetProjects } from "./api/projects";
import { Layout } from "./components/Layout";
import { prefetchRoute } from "./graph/lineageRequest";
import { PageFor } from "./pages/PageFor";
import { SignIn } from "./pages/SignIn";
import { useRoute } from "./routes/useRoute";

/** Sign-in until there is a token; then the page of the current hash route. */
export function App() {
  const [token, setTokenState] = useState<string | null>(getToken);
  const [message, setMessage] = useState<string | null>(null);
  const route = useRoute();

  useEffect(
    () =>
      onAuthLost((why) => {
        setTokenState(null);
        setMessage(why);
      }),
    [],
  );

  const signIn = (value: string) => {
    setToken(value);
    setMessage(null);
    setTokenState(getToken());
    // A lineage deep link opened signed out: its answer is asked for while the page's code loads.
    if (getToken()) prefetchRoute(route);
  };
  const signOut = () => {
    clearToken();
    forgetProjects();
    setTokenState(null);
    setMessage("You signed out.");
  };

  if (!token) return <SignIn message={message} onSignIn={signIn} />;
  return (
    <Layout onSignOut={signOut}>
      <PageFor route={route} />
    </Layout>
  );
}
