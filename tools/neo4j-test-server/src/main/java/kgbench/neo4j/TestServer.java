package kgbench.neo4j;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * A throwaway Neo4j 5 server for kgbench's tests: the community engine in-process, reachable
 * only over Bolt on a loopback address, with auth on.
 *
 * <p>Why in-process: the machines have no Docker and no Neo4j package, but Maven Central serves
 * the engine, and the embedded DBMS with its Bolt connector is the same server a client sees.
 *
 * <p>Usage: {@code TestServer HOME PORT READYFILE}; the password comes from the environment
 * variable {@code KGBENCH_NEO4J_PASSWORD} (never an argument, so it is not in {@code ps}). The
 * ready file (holding the pid) appears only once the password is set and Bolt listens, so its
 * presence means ready; it is removed when the server stops (SIGTERM). Started and stopped by
 * {@code ctl.py} beside this project ({@code make neo4j-up}, {@code make neo4j-down}).
 */
public final class TestServer {
    private static final String HOST = "127.0.0.1";

    private TestServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: TestServer HOME PORT READYFILE (password in KGBENCH_NEO4J_PASSWORD)");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        Path readyFile = Path.of(args[2]).toAbsolutePath();
        String password = System.getenv("KGBENCH_NEO4J_PASSWORD");
        if (password == null || password.isEmpty()) {
            System.err.println("KGBENCH_NEO4J_PASSWORD is not set: give the password for user neo4j");
            System.exit(2);
        }

        long started = System.nanoTime();
        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                // Tests log in with a wrong password on purpose; Neo4j's lock (3 failures, then 5 s
                // of refusing even the right one) would fail the tests running beside them.
                .setConfig(GraphDatabaseSettings.auth_max_failed_attempts, 0)
                // Modest by default: CI machines have 2 cores and share 24 GB with the tests.
                // -Dkgbench.pagecache.mb=N (ctl.py's --jvm server) sizes it as a server would.
                .setConfig(GraphDatabaseSettings.pagecache_memory,
                        ByteUnit.mebiBytes(Long.getLong("kgbench.pagecache.mb", 256)));
        DatabaseManagementService dbms;
        try {
            dbms = builder.build();
        } catch (RuntimeException e) {
            // E.g. the port is taken: say so and exit rather than linger with half-started threads.
            e.printStackTrace();
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            try {
                Files.deleteIfExists(readyFile);
            } catch (IOException ignored) {
                // ctl.py checks the process, not just the file.
            }
            System.out.println("neo4j test server stopped");
        }));

        try {
            // A fresh DBMS has neo4j/neo4j with a forced password change. Set the real password on
            // the system database before announcing readiness: clients wait for the ready file, and
            // until then the default login (loopback only) can do nothing but change the password.
            dbms.database("system").executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));

            String version = dbms.database("system").executeTransactionally(
                    "CALL dbms.components() YIELD versions RETURN versions[0] AS v", Map.of(),
                    result -> (String) result.next().get("v"));

            Path tmp = readyFile.resolveSibling(readyFile.getFileName() + ".tmp");
            Files.writeString(tmp, ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, readyFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            System.out.printf("neo4j %s ready on bolt://%s:%d in %.1f s (home %s)%n",
                    version, HOST, port, (System.nanoTime() - started) / 1e9, home);
            System.out.flush();
        } catch (Exception e) {
            // Neo4j's threads would keep the JVM alive; exit so the shutdown hook stops the DBMS
            // and ctl.py sees the failure instead of waiting for a ready file that never comes.
            e.printStackTrace();
            System.exit(1);
        }
        new CountDownLatch(1).await();
    }
}
