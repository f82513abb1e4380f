package qqweb;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * Starts Neo4j Community with its Bolt connector on 127.0.0.1 and blocks until killed.
 *
 * <p>Usage: {@code Neo4jLauncher --home DIR [--port 7687]}. Prints {@code QQWEB-NEO4J-READY
 * bolt://127.0.0.1:PORT} once Cypher is answered, and shuts the database down cleanly on
 * SIGTERM / Ctrl-C. Authentication is off: the server only listens on the loopback address.
 */
public final class Neo4jLauncher {
    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        Path home = Path.of("var/neo4j");
        int port = 7687;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--home" -> home = Path.of(args[++i]);
                case "--port" -> port = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("unknown argument: " + args[i]);
                    System.exit(2);
                }
            }
        }
        Files.createDirectories(home);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home.toAbsolutePath())
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(5))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        db.executeTransactionally("RETURN 1");
        System.out.println("QQWEB-NEO4J-READY bolt://127.0.0.1:" + port);
        System.out.flush();
        Thread.currentThread().join();
    }
}
