package dev.berth.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** README states the image's size as docs/image.md measured it (image.md: how to measure it). */
class ImageSizeDocsTest {
  @Test
  void readmeStatesTheMeasuredSize() throws Exception {
    assertThat(ImageSize.inReadme()).isEqualTo(ImageSize.documented());
  }
}
