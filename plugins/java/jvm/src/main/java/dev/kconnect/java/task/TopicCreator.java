package dev.kconnect.java.task;

import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.util.TopicAdmin;
import org.apache.kafka.connect.util.TopicCreation;
import org.apache.kafka.connect.util.TopicCreationGroup;

/**
 * A source task's topic creation (KIP-158) with Kafka's own {@code TopicCreation}, {@code
 * TopicCreationGroup} and {@code TopicAdmin}, as Kafka's worker builds them (its {@code
 * Worker.SourceTaskBuilder}) and uses them (its {@code AbstractWorkerSourceTask.maybeCreateTopic}).
 * On when the worker's {@code topic.creation.enable} is true and the connector config has a {@code
 * topic.creation.} key; otherwise nothing is asked and the broker's {@code auto.create.topics.enable}
 * decides. {@link SourceLoop} calls {@link #maybeCreate} with each record's topic just before
 * handing the record to the producer; closed (its admin client) when the task ends.
 */
final class TopicCreator implements AutoCloseable {
  private final TopicCreation creation;
  private final TopicAdmin admin;

  private TopicCreator(TopicCreation creation, TopicAdmin admin) {
    this.creation = creation;
    this.admin = admin;
  }

  /** No topic creation: a sink task's. */
  static TopicCreator none() {
    return new TopicCreator(TopicCreation.empty(), null);
  }

  /** The task's topic creation: the connector's groups, an admin client as Kafka configures a source task's. */
  static TopicCreator of(TaskSetup setup, WorkerConfig worker, SourceConnectorConfig config) {
    if (!worker.topicCreationEnable() || !config.usesTopicCreation()) {
      return none();
    }
    Map<String, TopicCreationGroup> groups = TopicCreationGroup.configuredGroups(config);
    return new TopicCreator(
        TopicCreation.newTopicCreation(worker, groups),
        new TopicAdmin(setup.adminConfig("connector-adminclient-" + setup.taskId)));
  }

  /**
   * Makes sure {@code topic} exists before the first record to it is sent: a topic this task already
   * found or created is not looked up again; an existing one is left as it is (a describe, which
   * never auto-creates it); a missing one is created with its first matching group's settings.
   *
   * @throws ConnectException when the topic can be neither found nor created (the task fails)
   * @throws org.apache.kafka.connect.errors.RetriableException when the broker did not answer in time
   */
  void maybeCreate(String topic) {
    if (!creation.isTopicCreationRequired(topic)) {
      return;
    }
    if (!admin.describeTopics(topic).isEmpty()) {
      creation.addTopic(topic);
      return;
    }
    TopicCreationGroup group = creation.findFirstGroup(topic);
    NewTopic newTopic = group.newTopic(topic);
    TopicAdmin.TopicCreationResponse response = admin.createOrFindTopics(newTopic);
    if (!response.isCreatedOrExisting(topic)) {
      throw new ConnectException("Task failed to create new topic " + newTopic + ". Ensure that the task is "
          + "authorized to create topics or that the topic exists and restart the task");
    }
    creation.addTopic(topic);
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close();
    }
  }
}
