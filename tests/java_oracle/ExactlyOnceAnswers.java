package kconnect.test;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * The Java twin of tests/connectors.py's ExactlyOnceAnswers: answers exactlyOnceSupport and
 * canDefineTransactionBoundaries with the values of "answer.exactly.once" and
 * "answer.transaction.boundaries" (SUPPORTED, UNSUPPORTED, null when unset or "null", or "raise":
 * a RuntimeException "cannot tell ..."). Declares no keys of its own; its task polls nothing.
 * Compiled and put on a Java worker's classpath by tests/integration/test_exactly_once_validate_java.py.
 */
public class ExactlyOnceAnswers extends SourceConnector {
    private Map<String, String> config = Collections.emptyMap();

    private static String answer(Map<String, String> config, String key, String question) {
        String answer = config.getOrDefault(key, "null");
        if ("raise".equals(answer)) {
            throw new RuntimeException("cannot tell " + question);
        }
        return "null".equals(answer) ? null : answer;
    }

    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> config) {
        String answer = answer(config, "answer.exactly.once", "exactly-once support");
        return answer == null ? null : ExactlyOnceSupport.valueOf(answer);
    }

    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> config) {
        String answer = answer(config, "answer.transaction.boundaries", "transaction boundaries");
        return answer == null ? null : ConnectorTransactionBoundaries.valueOf(answer);
    }

    @Override
    public void start(Map<String, String> props) {
        config = props;
    }

    @Override
    public Class<? extends Task> taskClass() {
        return IdleTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(config);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public String version() {
        return "1.0.0";
    }

    /** Polls nothing, slowly. */
    public static class IdleTask extends SourceTask {
        @Override
        public String version() {
            return "undefined";
        }

        @Override
        public void start(Map<String, String> props) {
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            Thread.sleep(200);
            return null;
        }

        @Override
        public void stop() {
        }
    }
}
